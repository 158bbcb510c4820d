/** A JSON object as the codecs handle wire bodies before (or instead of) a schema. */
export type Json = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What `parseJsonOr` gives for text that is not JSON. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

/** `JSON.parse(text)`, or NOT_JSON instead of a throw (an upstream stream chunk that is not JSON). */
export function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * The JSON string literal at [start, end) of `text` (quotes included) as its value, or undefined
 * when it is not one. Without escapes, quotes or control characters inside (most streamed text)
 * the value is a slice; anything else is left to JSON.parse, so the answers are JSON.parse's.
 */
export function readStringLiteral(text: string, start: number, end: number): string | undefined {
  const last = end - 1;
  if (last <= start || text.charCodeAt(start) !== 34 || text.charCodeAt(last) !== 34) return undefined;
  for (let i = start + 1; i < last; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 34 || c === 92) {
      const value = parseJsonOr(text.slice(start, end));
      return typeof value === 'string' ? value : undefined;
    }
  }
  return text.slice(start + 1, last);
}
