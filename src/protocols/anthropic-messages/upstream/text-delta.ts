/**
 * The hot event of an Anthropic stream, read without parsing the whole event: most of a stream is
 * `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`, in exactly
 * this form (the API's own serialization). Only the text's string literal is parsed; any other
 * form (another key order, spaces, more fields, a malformed literal) gives undefined and takes the
 * full parse and check, so what is accepted here is exactly what the full path would accept.
 */
import { readStringLiteral } from '../../shared/json.js';

const HEAD = '{"type":"content_block_delta","index":';
const MID = ',"delta":{"type":"text_delta","text":';
const TAIL = '}}';
const QUOTE = 34;
const ZERO = 48;
const NINE = 57;

export interface TextDelta {
  index: number;
  text: string;
}

export function readTextDelta(data: string): TextDelta | undefined {
  if (!data.startsWith(HEAD)) return undefined;
  const first = HEAD.length;
  let pos = first;
  let index = 0;
  // Up to 9 digits (a longer index is left to the full parse), no leading zero (not JSON).
  for (let c = data.charCodeAt(pos); c >= ZERO && c <= NINE && pos - first < 9; c = data.charCodeAt(++pos)) index = index * 10 + (c - ZERO);
  if (pos === first || (pos - first > 1 && data.charCodeAt(first) === ZERO)) return undefined;
  if (!data.startsWith(MID, pos)) return undefined;
  const start = pos + MID.length;
  const end = data.length - TAIL.length;
  if (end - start < 2 || data.charCodeAt(start) !== QUOTE || data.charCodeAt(end - 1) !== QUOTE || !data.endsWith(TAIL)) return undefined;
  // One JSON string literal or nothing: `"a"},"x":{"y":"b"` is not a JSON text, so it falls back.
  const text = readStringLiteral(data, start, end);
  return text === undefined ? undefined : { index, text };
}
