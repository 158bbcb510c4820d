/** The gateway's own SSE parser (src/wire/sse.ts) against eventsource-parser, on fixed and random streams split anywhere. */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { firstCutJsonEvent, forEachRawEvent, isCutJson, readSSE, SSEEventSplitter, SSEParser, sseFrame, type SSEEvent } from '../../src/wire/sse.js';
import { sseTransform } from '../../src/upstream/stream-pump.js';
import { seededRandom } from '../helpers/seeded-random.js';

function reference(chunks: string[]): SSEEvent[] {
  const out: SSEEvent[] = [];
  const parser = createParser({ onEvent: (m) => out.push(m.event ? { event: m.event, data: m.data } : { data: m.data }) });
  for (const c of chunks) parser.feed(c);
  parser.feed('\n\n');
  return out;
}

/** As `reference`, but an event the stream ends inside counts unless its data is JSON cut short, as SSEEventSplitter.end() keeps it. */
function referenceAtEnd(chunks: string[]): SSEEvent[] {
  const closed = reference(chunks);
  const text = chunks.join('').replace(/\r\n?/g, '\n');
  const blank = text.lastIndexOf('\n\n');
  const tail = blank < 0 ? text : text.slice(blank + 2);
  // Only an open event with a data line dispatches when the stream is closed for it.
  if (!tail.split('\n').some((line) => line === 'data' || line.startsWith('data:'))) return closed;
  const last = closed[closed.length - 1] as SSEEvent;
  const t = last.data.trim();
  let whole = t === '[DONE]' || (t[0] !== '{' && t[0] !== '[');
  try {
    JSON.parse(last.data);
    whole = true;
  } catch {
    // cut off
  }
  return whole ? closed : closed.slice(0, -1);
}

function ours(chunks: string[]): SSEEvent[] {
  const parser = new SSEParser();
  return [...chunks, '\n\n'].flatMap((c) => parser.feed(c));
}

const random = seededRandom;

function splitRandomly(text: string, rnd: () => number): string[] {
  const chunks: string[] = [];
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(rnd() * 12);
    chunks.push(text.slice(i, i + n));
    i += n;
  }
  return chunks;
}

const PIECES = ['data: {"a":1}', 'data:x', 'data', 'data: ', 'event: message_start', 'event:ping', 'event:', ': comment', ':', 'id: 7', 'retry: 100', 'data:  two spaces', 'dat', 'foo: bar', 'data: ü → 😀', 'data: [DONE]'];
const ENDS = ['\n', '\r\n', '\r', '\n\n', '\r\n\r\n', '\r\r', '\n\r\n'];

describe('SSEParser', () => {
  it('parses the usual shapes', () => {
    expect(ours(['event: a\ndata: 1\n\n', 'data: 2\ndata: 3\n\n', ': c\n\ndata:\n\n'])).toEqual([{ event: 'a', data: '1' }, { data: '2\n3' }, { data: '' }]);
  });

  it('handles CR, CRLF and LF line ends, also split between chunks', () => {
    expect(ours(['data: a\r', '\ndata: b\r', '\r', 'data: c\r\n\r\n'])).toEqual([{ data: 'a\nb' }, { data: 'c' }]);
  });

  it('matches eventsource-parser on random streams split at random places', () => {
    const rnd = random(42);
    for (let round = 0; round < 400; round++) {
      let text = '';
      const lines = 1 + Math.floor(rnd() * 20);
      for (let i = 0; i < lines; i++) text += (PIECES[Math.floor(rnd() * PIECES.length)] as string) + (ENDS[Math.floor(rnd() * ENDS.length)] as string);
      const chunks = splitRandomly(text, rnd);
      expect(ours(chunks), JSON.stringify(chunks)).toEqual(reference(chunks));
    }
  });

  it('reads a byte stream, multi-byte characters split across chunks included', async () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: ü😀\n\nevent: e\ndata: x');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.slice(i, i + 3));
        c.close();
      },
    });
    const events: SSEEvent[] = [];
    for await (const ev of readSSE(stream)) events.push(ev);
    expect(events).toEqual([{ data: 'ü😀' }, { event: 'e', data: 'x' }]);
  });
});

/** Each whole event of the splitter's output, parsed on its own (a fresh parser: nothing carried over). */
function splitEvents(chunks: string[]): { events: SSEEvent[]; pieces: string[] } {
  const splitter = new SSEEventSplitter();
  const pieces = [...chunks.map((c) => splitter.feed(c)), splitter.end()].filter(Boolean);
  const events: SSEEvent[] = [];
  for (const piece of pieces) {
    forEachRawEvent(piece, (raw) => {
      const found = new SSEParser().feed(raw);
      expect(found.length).toBeLessThanOrEqual(1);
      events.push(...found);
    });
  }
  return { events, pieces };
}

describe('sseFrame', () => {
  it('frames multi-line data as one data line per line', () => {
    expect(new SSEParser().feed(sseFrame('a\n\nb', 'e'))).toEqual([{ event: 'e', data: 'a\n\nb' }]);
  });
});

describe('SSEEventSplitter', () => {
  it('gives whole events as they came, holding back the unfinished one', () => {
    const splitter = new SSEEventSplitter();
    expect(splitter.feed('data: 1\n\nda')).toBe('data: 1\n\n');
    expect(splitter.feed('ta: 2\n')).toBe('');
    expect(splitter.feed('\n: c\n\ndata: 3')).toBe('data: 2\n\n: c\n\n');
    expect(splitter.end()).toBe('data: 3\n\n');
    expect(splitter.end()).toBe('');
  });

  it('at the end keeps a last event whose data is whole and drops one the stream was cut inside', () => {
    const endOf = (text: string): string => {
      const splitter = new SSEEventSplitter();
      splitter.feed(text);
      return splitter.end();
    };
    expect(endOf('data: {"a":1}\n\ndata: [DONE]')).toBe('data: [DONE]\n\n');
    expect(endOf('event: message_stop\ndata: {"type":"message_stop"}\n')).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    expect(endOf('data: plain text')).toBe('data: plain text\n\n');
    expect(endOf('event: content_block_start\n')).toBe('');
    const cut = new SSEEventSplitter();
    expect(cut.feed('data: {"id":"chatcmpl-1"}\n\ndata: {"id":"chatcmpl-1","obje')).toBe('data: {"id":"chatcmpl-1"}\n\n');
    expect(cut.end()).toBe('');
    const parser = new SSEParser();
    expect(parser.feed('data: {"a":1}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index"')).toEqual([{ data: '{"a":1}' }]);
    expect(parser.end()).toEqual([]);
    const done = new SSEParser();
    done.feed('data: [DONE]');
    expect(done.end()).toEqual([{ data: '[DONE]' }]);
  });

  it('makes CR and CRLF line ends LF, also split between chunks', () => {
    const splitter = new SSEEventSplitter();
    expect(splitter.feed('data: a\r')).toBe('');
    expect(splitter.feed('\ndata: b\r\n\r')).toBe('data: a\ndata: b\n\n');
    expect(splitter.feed('\ndata: c\r\r')).toBe('data: c\n\n');
  });

  it('cuts only between events: the same events as eventsource-parser on random streams split at random places', () => {
    const rnd = random(7);
    for (let round = 0; round < 400; round++) {
      let text = '';
      const lines = 1 + Math.floor(rnd() * 20);
      for (let i = 0; i < lines; i++) text += (PIECES[Math.floor(rnd() * PIECES.length)] as string) + (ENDS[Math.floor(rnd() * ENDS.length)] as string);
      const chunks = splitRandomly(text, rnd);
      const { events, pieces } = splitEvents(chunks);
      expect(events, JSON.stringify(chunks)).toEqual(referenceAtEnd(chunks));
      for (const piece of pieces) expect(piece.endsWith('\n\n')).toBe(true);
    }
  });
});

describe('JSON cut short in a relayed stream', () => {
  it('isCutJson looks at the ends only: objects and arrays must close; text and [DONE] pass', () => {
    expect(['{"a":1}', ' [1] ', '[DONE]', 'hello', '', '{"a":"}"}'].map(isCutJson)).toEqual([false, false, false, false, false, false]);
    expect(['{"candid', '[1,', '{', '{"a":{"b":1}'].map(isCutJson)).toEqual([true, true, true, false]);
  });

  it('firstCutJsonEvent finds where the first such event starts (multi-line data judged by its first and last lines)', () => {
    expect(firstCutJsonEvent('data: {"a":1}\n\nevent: x\ndata: {"b":2}\n\n')).toBe(-1);
    expect(firstCutJsonEvent('data: {"a":1}\n\ndata: {"candid\n\ndata: {"c":3}\n\n')).toBe(15);
    expect(firstCutJsonEvent('data: {"a":\ndata: 1}\n\n: comment\n\ndata: [DONE]\n\n')).toBe(-1);
    expect(firstCutJsonEvent('event: e\ndata: {"a":\ndata: 1\n\n')).toBe(0);
  });

  it('a parsing relay refuses it too, after the events before it', () => {
    const t = sseTransform({ refuseCutJson: true, event: (ev) => `[${ev.data}]`, end: () => '' });
    const out: string[] = [];
    expect(() => t.push(new TextEncoder().encode('data: {"a":1}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","ind\n\n'), (s) => out.push(s))).toThrow(/malformed stream event/);
    expect(out.join('')).toBe('[{"a":1}]');
  });
});
