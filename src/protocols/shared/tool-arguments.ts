/**
 * Tool call arguments arrive as JSON text (the IR keeps them so); most wires want an object. One
 * parser for every protocol; each caller picks what a non-object, invalid or too-deep text becomes.
 */
import { nestsTooDeep } from '../../wire/json-guard.js';

export type ParsedArguments =
  | { kind: 'object'; value: Record<string, unknown> }
  /** Valid JSON, but not an object (`"x"`, `[1]`, `3`). */
  | { kind: 'value'; value: unknown }
  /** Not JSON (a model once produced such arguments). */
  | { kind: 'invalid' }
  /** Nested too deep to serialize again (JSON.stringify recurses): unusable, like invalid JSON. */
  | { kind: 'too-deep' };

/** Tool arguments text -> what it holds. Empty text is `{}`. */
export function parseToolArguments(text: string): ParsedArguments {
  if (nestsTooDeep(text)) return { kind: 'too-deep' };
  let value: unknown;
  try {
    value = JSON.parse(text || '{}') as unknown;
  } catch {
    return { kind: 'invalid' };
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? { kind: 'object', value: value as Record<string, unknown> } : { kind: 'value', value };
}

/** The arguments as an object; anything else becomes `{}` (an empty object keeps the message valid). */
export function toolInput(args: string): Record<string, unknown> {
  const parsed = parseToolArguments(args);
  return parsed.kind === 'object' ? parsed.value : {};
}

/** The arguments as an object, a non-object JSON value wrapped as `{value}`, anything else `{}`. */
export function argumentsObject(args: string): Record<string, unknown> {
  const parsed = parseToolArguments(args);
  if (parsed.kind === 'object') return parsed.value;
  return parsed.kind === 'value' ? { value: parsed.value } : {};
}
