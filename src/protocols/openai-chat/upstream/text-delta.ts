/**
 * The hot chunk of an OpenAI chat stream, read without parsing the whole chunk: most of a stream is
 * `{"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":[{"index":0,"delta":{"content":"…"},"logprobs":null,"finish_reason":null}]}`
 * in exactly this form (the API's own serialization, with its optional `service_tier`,
 * `system_fingerprint`, `usage":null` and `obfuscation` members). Only the content's string literal
 * is parsed; every other form (another key order, spaces, more fields, a tool call, a finish reason,
 * a malformed literal) gives undefined and takes the full parse and check, so what is accepted here
 * is exactly what the full path would accept, with the same meaning.
 */
import { stringEnd } from '../../../wire/json-guard.js';
import { readStringLiteral } from '../../shared/json.js';

/** A JSON string without escapes or control characters (ids, models: what the API sends). */
const PLAIN = '"[^"\\\\\\u0000-\\u001f]*"';
const HEAD = new RegExp(
  `^\\{"id":${PLAIN},"object":"chat\\.completion\\.chunk","created":(?:0|[1-9]\\d{0,14}),"model":${PLAIN},` +
    `(?:"service_tier":${PLAIN},)?(?:"system_fingerprint":(?:${PLAIN}|null),)?` +
    `"choices":\\[\\{"index":0,"delta":\\{(?:"role":"assistant",)?"content":(?=")`,
);
const TAIL = new RegExp(`\\},(?:"logprobs":null,)?"finish_reason":null\\}\\](?:,"usage":null)?(?:,"obfuscation":${PLAIN})?\\}$`, 'y');

/** The content of a plain text chunk, or undefined when the chunk needs the full parse. */
export function readContentDelta(data: string): string | undefined {
  const head = HEAD.exec(data);
  if (!head) return undefined;
  const start = head[0].length;
  const end = stringEnd(data, start);
  // An unterminated literal ends the text (a real one is followed by the chunk's tail).
  if (end >= data.length) return undefined;
  TAIL.lastIndex = end;
  if (!TAIL.test(data)) return undefined;
  return readStringLiteral(data, start, end);
}
