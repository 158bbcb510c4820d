/**
 * The quick read of OpenAI chat text chunks (no parse of the whole chunk) accepts exactly the API's
 * own form and leaves everything else to the full parse and check: the decoder's output is the
 * same whichever path a chunk takes, over fixed cases and over randomly mutated chunks.
 */
import { describe, expect, it } from 'vitest';
import { createOpenAIChatStreamDecoder } from '../../../src/protocols/openai-chat/upstream/stream-decoder.js';
import { readContentDelta } from '../../../src/protocols/openai-chat/upstream/text-delta.js';
import { seededRandom } from '../../helpers/seeded-random.js';

const chunk = (content: string, opts: { head?: string; delta?: string; tail?: string } = {}): string =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o"${opts.head ?? ''},"choices":[{"index":0,"delta":{${opts.delta ?? ''}"content":${content}},"logprobs":null,"finish_reason":null}]${opts.tail ?? ''}}`;

describe('readContentDelta', () => {
  it.each([
    ['plain', chunk('"Hello"'), 'Hello'],
    ['escapes and unicode', chunk(JSON.stringify('a "quoted"\n\\ \u00e9 \ud83d\ude00')), 'a "quoted"\n\\ \u00e9 \ud83d\ude00'],
    ['empty content', chunk('""'), ''],
    ['content that looks like the frame', chunk(JSON.stringify('"},"logprobs":null,"finish_reason":null}]}')), '"},"logprobs":null,"finish_reason":null}]}'],
    ['service tier and fingerprint', chunk('"a"', { head: ',"service_tier":"default","system_fingerprint":"fp_1"' }), 'a'],
    ['a null fingerprint', chunk('"a"', { head: ',"system_fingerprint":null' }), 'a'],
    ['the role again', chunk('"a"', { delta: '"role":"assistant",' }), 'a'],
    ['usage null and obfuscation', chunk('"a"', { tail: ',"usage":null,"obfuscation":"Xy9"' }), 'a'],
  ])('reads the API form: %s', (_name, data, expected) => {
    expect(readContentDelta(data)).toBe(expected);
    expect(JSON.parse(data).choices[0].delta.content).toBe(expected);
  });

  it.each([
    ['an unterminated literal', chunk('"a')],
    ['two values in the content slot', chunk('"a"},"x":{"y":"b"')],
    ['a raw control character', chunk('"a\u0001"')],
    ['a bad escape', chunk('"\\x41"')],
    ['a number as content', chunk('5')],
    ['null content', chunk('null')],
    ['spaces', chunk('"a"').replace('"content":', '"content": ')],
    ['a finish reason', chunk('"a"').replace('"finish_reason":null', '"finish_reason":"stop"')],
    ['a usage object', chunk('"a"', { tail: ',"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}' })],
    ['a second choice', chunk('"a"').replace('}]}', '},{"index":1,"delta":{"content":"b"},"finish_reason":null}]}')],
    ['another index', chunk('"a"').replace('"index":0', '"index":1')],
    ['a refusal too', chunk('"a"').replace('"content":"a"', '"content":"a","refusal":"no"')],
    ['an error member', chunk('"a"', { tail: ',"error":{"message":"boom"}' })],
    ['an escaped id', chunk('"a"').replace('chatcmpl-1', 'chat\\u0063mpl')],
    ['a control character in the model', chunk('"a"').replace('gpt-4o', 'gpt\u00014o')],
    ['trailing text', `${chunk('"a"')} `],
    ['a leading zero in created', chunk('"a"').replace('1700000000', '01')],
  ])('leaves other text to the full parse: %s', (_name, data) => {
    expect(readContentDelta(data)).toBeUndefined();
  });
});

/** A decoder past its first chunk (the first one opens the message from its id and model). */
function decodeAfterStart(data: string): unknown {
  const decoder = createOpenAIChatStreamDecoder();
  decoder.event({ data: chunk('""', { delta: '"role":"assistant",' }) });
  return decoder.event({ data });
}

/** The full path's answer for the same chunk: the same chunk respaced takes the full parse. */
function decodeFull(data: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return decodeAfterStart(data);
  }
  return decodeAfterStart(JSON.stringify(parsed, null, 1));
}

describe('the decoder decides the same on both paths', () => {
  it('a text chunk in the API form and the same chunk spaced out give the same events', () => {
    const quick = decodeAfterStart(chunk(JSON.stringify('say "hi"\n')));
    expect(quick).toEqual([
      { type: 'text-start', id: 't0' },
      { type: 'text-delta', id: 't0', delta: 'say "hi"\n' },
    ]);
    expect(decodeFull(chunk(JSON.stringify('say "hi"\n')))).toEqual(quick);
  });

  it('over randomly mutated chunks, both paths give the same events', () => {
    const random = seededRandom(1313);
    const pieces = ['"', '\\', '}', ']', ',', ':', 'null', '"stop"', '0', '1', ' ', '\u0001', 'a', '"content":', '"usage":null', '{', '"x":1'];
    const bases = [
      chunk('"Hello world"'),
      chunk('"a"', { head: ',"system_fingerprint":"fp"', tail: ',"obfuscation":"Q"' }),
      chunk(JSON.stringify('quote " and \\ slash')),
      chunk('""', { delta: '"role":"assistant",' }),
    ];
    let quickTaken = 0;
    for (let i = 0; i < 4000; i++) {
      let data = bases[i % bases.length] as string;
      const edits = 1 + Math.floor(random() * 2);
      for (let e = 0; e < edits && i % 5 !== 0; e++) {
        const at = Math.floor(random() * data.length);
        const cut = Math.floor(random() * 3);
        data = data.slice(0, at) + (pieces[Math.floor(random() * pieces.length)] as string) + data.slice(at + cut);
      }
      if (readContentDelta(data) !== undefined) quickTaken++;
      expect(decodeAfterStart(data), data).toEqual(decodeFull(data));
    }
    // The property is only worth something if the quick path was taken often, and not always.
    expect(quickTaken).toBeGreaterThan(800);
    expect(quickTaken).toBeLessThan(4000);
  });
});
