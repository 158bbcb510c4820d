/** A JSON object as the codecs handle wire bodies before (or instead of) a schema. */
export type Json = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
