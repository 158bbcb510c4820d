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
