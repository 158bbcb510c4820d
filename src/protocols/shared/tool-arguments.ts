import { nestsTooDeep } from '../../http/json-guard.js';

/** Tool arguments (JSON text) -> the object Anthropic's `input` must be. */
export function toolInput(args: string): Record<string, unknown> {
  // Too deep to serialize again (JSON.stringify recurses): unusable, like invalid JSON.
  if (nestsTooDeep(args)) return {};
  try {
    const v = JSON.parse(args || '{}') as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // the model produced invalid JSON; an empty object keeps the message valid
  }
  return {};
}
