/**
 * Pieces of the deterministic answers every mock vendor shares: how a text is cut into stream
 * chunks, and the arguments a mock calls a declared function with.
 */
type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A text streamed one word per chunk, each word with the white space before it; '' is no chunk. */
export function wordChunks(text: string): string[] {
  return text.match(/\s*\S+/g) ?? (text ? [text] : []);
}

/** Anthropic's cut: trailing white space is a chunk of its own, and '' is one empty chunk. */
export function wordChunksKeepingSpace(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [text];
}

export interface ArgsFromSchemaOptions {
  /** Compare a property's `type` case-insensitively (Gemini writes `STRING`). */
  caseInsensitive?: boolean;
  /** A property of any other type: left out (default) or given the string too. */
  otherTypes?: 'omit' | 'string';
}

/** The arguments of a mock's function call: `'Paris'` for strings, 1 for numbers, true for booleans. */
export function argsFromSchema(schema: unknown, options: ArgsFromSchemaOptions = {}): Json {
  const out: Json = {};
  const props = isObj(schema) && isObj(schema.properties) ? schema.properties : {};
  for (const [k, s] of Object.entries(props)) {
    const raw = isObj(s) ? s.type : undefined;
    const type = options.caseInsensitive ? (typeof raw === 'string' ? raw.toLowerCase() : '') : raw;
    if (type === 'number' || type === 'integer') out[k] = 1;
    else if (type === 'boolean') out[k] = true;
    else if (type === 'string' || options.otherTypes === 'string') out[k] = 'Paris';
  }
  return out;
}
