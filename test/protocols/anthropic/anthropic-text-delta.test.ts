/**
 * The quick read of Anthropic text deltas (no parse of the whole event) accepts exactly the API's
 * own form and leaves everything else to the full parse and check, which then decides the same way
 * it always did: the decoder's output is the same whichever path an event takes.
 */
import { describe, expect, it } from 'vitest';
import { createAnthropicStreamDecoder } from '../../../src/protocols/anthropic-messages/upstream/stream-decoder.js';
import { readTextDelta } from '../../../src/protocols/anthropic-messages/upstream/text-delta.js';

const delta = (index: string, literal: string): string => `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${literal}}}`;

describe('readTextDelta', () => {
  it.each([
    ['plain', delta('0', '"Hello"'), { index: 0, text: 'Hello' }],
    ['escapes and unicode', delta('12', JSON.stringify('a "quoted"\n\\ \u00e9 \ud83d\ude00')), { index: 12, text: 'a "quoted"\n\\ \u00e9 \ud83d\ude00' }],
    ['escaped unicode', delta('3', '"\\u00e9\\u2028"'), { index: 3, text: '\u00e9\u2028' }],
    ['empty text', delta('0', '""'), { index: 0, text: '' }],
    ['text that looks like the frame', delta('1', JSON.stringify('"}}')), { index: 1, text: '"}}' }],
  ])('reads the API form: %s', (_name, data, expected) => {
    expect(readTextDelta(data)).toEqual(expected);
    expect(JSON.parse(data)).toMatchObject({ index: expected.index, delta: { text: expected.text } });
  });

  it.each([
    ['a leading zero (not JSON)', delta('01', '"a"')],
    ['no index', delta('', '"a"')],
    ['an index of ten digits', delta('1234567890', '"a"')],
    ['a negative index', delta('-1', '"a"')],
    ['a number as text', delta('0', '5')],
    ['an unterminated literal', delta('0', '"a')],
    ['two values in the text slot', delta('0', '"a"},"x":{"y":"b"')],
    ['a raw control character', delta('0', '"a\u0001"')],
    ['a bad escape', delta('0', '"\\x41"')],
    ['spaces', '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}}'],
    ['another key order', '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}'],
    ['another field', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}'],
    ['a thinking delta', '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a"}}'],
    ['trailing text', `${delta('0', '"a"')} `],
  ])('leaves other text to the full parse: %s', (_name, data) => {
    expect(readTextDelta(data)).toBeUndefined();
  });
});

describe('the decoder decides the same on both paths', () => {
  const start = { event: 'message_start', data: '{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":3,"output_tokens":1}}}' };
  const block = { event: 'content_block_start', data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}' };
  const decode = (data: string, event?: string) => {
    const decoder = createAnthropicStreamDecoder();
    decoder.event(start);
    decoder.event(block);
    return decoder.event(event ? { event, data } : { data });
  };

  it('a text delta in the API form and the same event spaced out give the same events', () => {
    const text = 'say "hi"\n';
    const quick = decode(delta('0', JSON.stringify(text)), 'content_block_delta');
    const full = decode(`{ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": ${JSON.stringify(text)} } }`, 'content_block_delta');
    expect(quick).toEqual([{ type: 'text-delta', id: 't0', delta: text }]);
    expect(full).toEqual(quick);
    // Without an event line the type comes from the data, on the quick path too.
    expect(decode(delta('0', JSON.stringify(text)))).toEqual(quick);
  });

  it('a delta for a block that is not open, or an empty text, gives nothing', () => {
    expect(decode(delta('1', '"a"'), 'content_block_delta')).toEqual([]);
    expect(decode(delta('0', '""'), 'content_block_delta')).toEqual([]);
  });

  it('a malformed text delta still ends the stream with the in-band error', () => {
    expect(decode(delta('0', '"a\u0001"'), 'content_block_delta')).toMatchObject([{ type: 'error', error: { code: 'bad_gateway' } }]);
  });

  it('an event line of another type is read by its event name, not quickly as a text delta', () => {
    // A `ping` whose data happens to look like a text delta is a ping (ignored), as before.
    expect(decode(delta('0', '"a"'), 'ping')).toEqual([]);
  });
});
