/**
 * The OpenAI chat pass-through relays events as the upstream sent them and parses only those that
 * need a look ([DONE], finish_reason, an in-band error, the usage chunk). Whatever the split into
 * network chunks and the line ends, a client must read the same events as from the parse-every-event
 * relay: the usage chunk dropped unless asked for, [DONE] required from OpenAI, errors in-band.
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../../src/core/errors.js';
import type { SSEEvent } from '../../src/wire/sse.js';
import { openAIChatPassthrough } from '../../src/protocols/openai-chat/passthrough.js';
import { sseTransform } from '../../src/upstream/stream-pump.js';
import { seededRandom } from '../helpers/seeded-random.js';

const head = '"id":"c1","object":"chat.completion.chunk","created":1,"model":"m"';
const chunk = (delta: string, finish: string | null) => `{${head},"choices":[{"index":0,"delta":${delta},"finish_reason":${finish === null ? 'null' : `"${finish}"`}}],"usage":null}`;
const USAGE = `{${head},"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`;

/** An upstream stream with comments, an event name, multi-line data and multi-byte text. */
function upstreamText(opts: { eol?: string; done?: boolean; usage?: boolean; error?: boolean } = {}): string {
  const eol = opts.eol ?? '\n';
  const lines = [
    ': OPENROUTER PROCESSING',
    '',
    `data: ${chunk('{"role":"assistant","content":""}', null)}`,
    '',
    `data: ${chunk('{"content":"héllo 😀 [DONE] \\"error\\""}', null)}`,
    '',
    ': keep-alive',
    '',
    'event: message',
    `data: ${chunk('{"content":" wor', null).slice(0, 40)}`,
    `data: ${chunk('{"content":" world"}', null).slice(40)}`,
    '',
  ];
  if (opts.error) lines.push('data: {"error":{"message":"overloaded","type":"server_error","code":null}}', '');
  lines.push(`data: ${chunk('{}', 'stop')}`, '');
  if (opts.usage !== false) lines.push(`data: ${USAGE}`, '');
  if (opts.done !== false) lines.push('data: [DONE]', '');
  return lines.join(eol) + eol;
}

const random = seededRandom;

function byteChunks(text: string, rnd: () => number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(rnd() * 300);
    out.push(bytes.slice(i, i + n));
    i += n;
  }
  return out;
}

interface Outcome {
  events: SSEEvent[];
  error?: string;
  first?: string;
  usage?: number;
}

/** Runs the pass-through relay over `chunks`, raw (quiet) or parsing every event, and reads the result as a client would. */
function relayed(chunks: Uint8Array[], raw: boolean, clientWantsUsage = false): Outcome {
  const relay = openAIChatPassthrough.createRelay({ clientWantsUsage, traceId: 't', target: { streamTerminator: 'done-required' } });
  const out: Outcome = { events: [] };
  const transform = sseTransform({
    first: (ev) => (out.first = ev.data),
    event: (ev, rawEvent) => relay.relay(ev, rawEvent),
    end: () => relay.end(),
    error: (err) => relay.error(err),
    ...(raw ? { nextLook: (text: string, from: number) => relay.nextLook?.(text, from) ?? from } : {}),
  });
  let text = '';
  const emit = (t: string) => void (text += t);
  try {
    for (const c of chunks) transform.push(c, emit);
    transform.end(emit);
  } catch (err) {
    out.error = (err as GatewayError).message;
    text += transform.error?.(err as GatewayError) ?? '';
  }
  const parser = createParser({ onEvent: (m) => out.events.push(m.event ? { event: m.event, data: m.data } : { data: m.data }) });
  parser.feed(text);
  const usage = relay.usage();
  if (usage) out.usage = usage.totalTokens;
  return out;
}

describe('OpenAI chat pass-through, raw relay', () => {
  const cases: Array<[string, Parameters<typeof upstreamText>[0], boolean]> = [
    ['LF, usage not asked', {}, false],
    ['LF, usage asked', {}, true],
    ['CRLF', { eol: '\r\n' }, false],
    ['CR', { eol: '\r' }, true],
    ['an in-band error', { error: true }, false],
    ['no [DONE] from OpenAI', { done: false }, false],
  ];
  for (const [name, opts, wantsUsage] of cases) {
    it(`gives a client the same events as parsing each one: ${name}, split anywhere`, () => {
      const text = upstreamText(opts);
      const whole = relayed([new TextEncoder().encode(text)], false, wantsUsage);
      const rnd = random(name.length);
      for (let round = 0; round < 60; round++) {
        const chunks = byteChunks(text, rnd);
        expect(relayed(chunks, true, wantsUsage)).toEqual(whole);
      }
    });
  }

  it('drops the usage chunk unless asked, keeps usage, requires [DONE], relays in-band errors', () => {
    const once = (opts: Parameters<typeof upstreamText>[0], wants = false) => relayed([new TextEncoder().encode(upstreamText(opts))], true, wants);
    const plain = once({});
    expect(plain.first).toContain('"role":"assistant"');
    expect(plain.usage).toBe(5);
    expect(plain.events.some((e) => e.data.includes('"prompt_tokens"'))).toBe(false);
    expect(plain.events.at(-1)?.data).toBe('[DONE]');
    expect(plain.events.filter((e) => e.event === 'message')).toHaveLength(1);
    expect(once({}, true).events.some((e) => e.data.includes('"prompt_tokens"'))).toBe(true);
    expect(once({ done: false }).error).toMatch(/DONE/);
    const failed = once({ error: true });
    expect(failed.error).toContain('overloaded');
    expect(failed.events.at(-1)?.data).toContain('overloaded');
    expect(failed.events.some((e) => e.data.includes('"finish_reason":"stop"'))).toBe(false);
  });

  it('forwards events needing no look byte for byte', () => {
    const text = `data: ${chunk('{"content":"a"}', null)}\n\n: ping\n\nid: 4\ndata: ${chunk('{"content":"b"}', null)}\n\n`;
    const relay = openAIChatPassthrough.createRelay({ clientWantsUsage: false });
    const transform = sseTransform({ event: (ev, raw) => relay.relay(ev, raw), end: () => relay.end(), nextLook: (t, from) => relay.nextLook?.(t, from) ?? from });
    let out = '';
    transform.push(new TextEncoder().encode(text), (t) => void (out += t));
    expect(out).toBe(text);
  });
});
