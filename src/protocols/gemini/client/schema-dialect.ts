/**
 * Gemini schemas -> JSON Schema for other vendors. `parameters`/`responseSchema` use an OpenAPI 3.0
 * subset (`type: "OBJECT"`, `nullable`, `propertyOrdering`, `example`); real clients also send
 * upper-case types inside `parametersJsonSchema`/`responseJsonSchema`. Both become plain JSON Schema.
 */
import { isJsonObject, type Json } from '../../shared/json.js';

const NESTED_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
const NESTED_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const NESTED_ONE = new Set(['items', 'not', 'additionalProperties', 'if', 'then', 'else', 'contains']);

/** Converts one schema node (recursively); unknown keys are kept. */
function toJsonSchema(schema: unknown): unknown {
  if (!isJsonObject(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type') out.type = typeof v === 'string' ? v.toLowerCase() : Array.isArray(v) ? v.map((t) => (typeof t === 'string' ? t.toLowerCase() : t)) : v;
    else if (k === 'propertyOrdering' || k === 'nullable') continue;
    else if (k === 'example') out.examples = [v];
    else if (NESTED_MAPS.has(k) && isJsonObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, toJsonSchema(s)]));
    else if (NESTED_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(toJsonSchema);
    else if (NESTED_ONE.has(k)) out[k] = toJsonSchema(v);
    else out[k] = v;
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
  }
  return out;
}

/** A JSON Schema object, or undefined when the value is not an object. */
export function toJsonSchemaObject(schema: unknown): Json | undefined {
  const out = toJsonSchema(schema);
  return isJsonObject(out) ? out : undefined;
}
