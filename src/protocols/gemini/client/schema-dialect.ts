/**
 * Gemini schemas -> JSON Schema for other vendors. `parameters`/`responseSchema` use an OpenAPI 3.0
 * subset (`type: "OBJECT"`, `nullable`, `propertyOrdering`, `example`, `format: "enum"`, int64
 * limits written as strings); real clients also send upper-case types inside
 * `parametersJsonSchema`/`responseJsonSchema`, and Google's Agent Development Kit sends them to the
 * Interactions API. All of it becomes plain JSON Schema, at every depth (properties, items, anyOf, ...).
 */
import { isJsonObject, type Json } from '../../shared/json.js';

const NESTED_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const NESTED_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const NESTED_ONE = new Set(['items', 'not', 'additionalProperties', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']);
/** Gemini's int64 limits, which proto3 JSON writes as strings (`"maxItems": "3"`). */
const COUNTS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/** `"STRING"` -> `"string"`; Gemini's `TYPE_UNSPECIFIED` says nothing (undefined). */
function typeName(t: unknown): unknown {
  if (typeof t !== 'string') return t;
  const lower = t.toLowerCase();
  return lower === 'type_unspecified' ? undefined : lower;
}

function convertType(v: unknown): unknown {
  if (!Array.isArray(v)) return typeName(v);
  const types = v.map(typeName).filter((t) => t !== undefined);
  return types.length ? types : undefined;
}

/** An integer/number enum written as strings (`{type: INTEGER, format: enum, enum: ["101"]}`) -> numbers. */
function enumValues(values: unknown, type: unknown): unknown {
  if (!Array.isArray(values) || (type !== 'integer' && type !== 'number')) return values;
  return values.map((v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v));
}

/** Converts one schema node (recursively); unknown keys are kept. */
function toJsonSchema(schema: unknown): unknown {
  if (!isJsonObject(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type') {
      const type = convertType(v);
      if (type !== undefined) out.type = type;
    } else if (k === 'propertyOrdering' || k === 'nullable') continue;
    else if (k === 'format' && v === 'enum') continue;
    else if (k === 'example') out.examples = [v];
    else if (COUNTS.has(k) && typeof v === 'string' && /^\d+$/.test(v)) out[k] = Number(v);
    else if (NESTED_MAPS.has(k) && isJsonObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, toJsonSchema(s)]));
    else if (NESTED_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(toJsonSchema);
    else if (NESTED_ONE.has(k)) out[k] = toJsonSchema(v);
    else out[k] = v;
  }
  if (out.enum !== undefined) out.enum = enumValues(out.enum, out.type);
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

/** A JSON Schema object, or undefined when the value is not an object. */
export function toJsonSchemaObject(schema: unknown): Json | undefined {
  const out = toJsonSchema(schema);
  return isJsonObject(out) ? out : undefined;
}
