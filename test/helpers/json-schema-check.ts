/**
 * Whether a tool's schema is valid JSON Schema (draft 2020-12, checked against the meta-schema with
 * Ajv), as OpenAI and Anthropic check function parameters before they accept a tool: Gemini's
 * OpenAPI dialect (`"type": "STRING"`) is refused there. Used by the strict mock vendors.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';

export interface SchemaProblem {
  /** Where in the schema, as OpenAI names it: `()` for the root, `('properties', 'city')` inside. */
  context: string;
  /** The offending value, when the problem is one (`'STRING'`). */
  value: unknown;
  message: string;
}

const ajv = new Ajv2020({ strict: false, validateSchema: true });

function valueAt(root: unknown, pointer: string): unknown {
  let at: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}

/** The first reason `schema` is not valid JSON Schema, or undefined when it is. */
export function jsonSchemaProblem(schema: unknown): SchemaProblem | undefined {
  if (ajv.validateSchema(schema as object) === true) return undefined;
  const errors = ajv.errors ?? [];
  // The deepest complaint names the real culprit (the meta-schema's anyOf reports its parents too).
  const worst = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  const pointer = worst?.instancePath ?? '';
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  // `/properties/city/type` -> context ('properties', 'city'), the value at `type`.
  const keyword = parts.at(-1);
  const inside = keyword === 'type' ? parts.slice(0, -1) : parts;
  const context = inside.length ? `(${inside.map((p) => `'${p}'`).join(', ')})` : '()';
  return { context, value: valueAt(schema, pointer), message: worst?.message ?? 'is not valid JSON Schema' };
}
