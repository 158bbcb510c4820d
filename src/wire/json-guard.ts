/**
 * One cheap scan of a JSON text before it is parsed: the nesting depth and duplicate top-level keys.
 *
 * - Depth: JSON.stringify and every recursive walker over request data (schema dialects, token
 *   estimates) overflow the stack on a body nested 100k levels deep. Bodies are refused past
 *   MAX_JSON_DEPTH, so nothing downstream can be driven deeper than that.
 * - Duplicate top-level keys: JSON.parse keeps the last `model`, the byte splicer that rewrites a
 *   pass-through body (json-splice.ts) the first, and the upstream picks whichever its parser
 *   picks. A body with two `model` keys could reach the upstream under a name the gateway never
 *   authorized, so such bodies are refused.
 *
 * - A key named `__proto__` anywhere: JSON.parse keeps it as an own key, and any assignment or
 *   merge of it (`Object.assign`, `out[key] = value`) replaces the target's prototype instead of
 *   adding a key, so the value would steer what the gateway reads. Such bodies are refused; keys
 *   named `constructor` or `prototype` are data like any other.
 *
 * Iterative (no recursion); strings are skipped with indexOf, so base64 payloads cost little.
 */
import { GatewayError } from '../core/errors.js';
import { quoteInput } from '../core/quote-input.js';

/**
 * Deepest nesting of objects and arrays accepted in a JSON body. Generous: a tool schema nests two
 * levels per property level, and real requests stay far below 30.
 */
export const MAX_JSON_DEPTH = 128;

export interface JsonShape {
  /** The text nests objects/arrays deeper than the limit (the scan stops there). */
  tooDeep: boolean;
  /** A key that appears twice in the top-level object (decoded, so `"mod\u0065l"` is `model`). */
  duplicateKey: string | undefined;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** Index just past the closing quote of the JSON string starting at `start` (text.length if unterminated), found with indexOf. */
export function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let slashes = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function decodeKey(literal: string): string | undefined {
  if (!literal.includes('\\')) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/**
 * The one walk of a JSON text's nesting: -1 when it nests deeper than `maxDepth` (the walk stops
 * there), else how many keys its top-level object lists (0 when the top is not an object).
 * `onKey` hears each top-level key literal's [start, end) as the walk passes it.
 */
function walkTopLevel(text: string, maxDepth: number, onKey?: (start: number, end: number) => void): number {
  let depth = 0;
  // Only the keys of a top-level object are counted.
  let topIsObject = false;
  let expectKey = false;
  let keys = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey && depth === 1) {
        expectKey = false;
        keys++;
        onKey?.(i, end);
      }
      i = end;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 0) {
        topIsObject = c === 123;
        expectKey = topIsObject;
      }
      depth++;
      if (depth > maxDepth) return -1;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    } else if (c === 44 /* , */ && depth === 1) {
      expectKey = topIsObject;
    }
    i++;
  }
  return keys;
}

/** Scans `text` once. Works on every text; the verdicts are meaningful for valid JSON. */
export function inspectJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonShape {
  let keys: Set<string> | undefined;
  let duplicateKey: string | undefined;
  const depthOk = walkTopLevel(text, maxDepth, (start, end) => {
    if (duplicateKey !== undefined) return;
    const key = decodeKey(text.slice(start, end));
    if (key === undefined) return;
    keys ??= new Set();
    if (keys.has(key)) duplicateKey = key;
    else keys.add(key);
  });
  return { tooDeep: depthOk === -1, duplicateKey };
}

/**
 * inspectJson's scan without its allocations, for request bodies: -1 when `text` nests deeper than
 * `maxDepth`, else how many keys the top-level object lists (0 when the top is not an object). Keys
 * are counted, not decoded: for a valid JSON object, a count above the parsed object's own keys
 * means a repeated key, and only then does inspectJson have to name it.
 */
export function topLevelKeyCount(text: string, maxDepth = MAX_JSON_DEPTH): number {
  return walkTopLevel(text, maxDepth);
}

/** A `\u` escape of a character of `__proto__` (`_`, `o`, `p`, `r`, `t`): only then can a key spell it without the plain text. */
const ESCAPED_PROTO_CHAR = /\\u00(?:5[fF]|6[fF]|7[024])/;

/**
 * Where a parsed JSON value (parsed from `text`) has a key named `__proto__`, as a path
 * (`messages[0].content[1].__proto__`), or undefined. The text is searched first, so a body that
 * neither contains `__proto__` nor escapes one of its letters costs two substring scans.
 */
export function protoKeyPath(text: string, value: unknown): string | undefined {
  if (!text.includes('__proto__') && !ESCAPED_PROTO_CHAR.test(text)) return undefined;
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const node = next.value;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], path: `${next.path}[${i}]` });
      continue;
    }
    if (Object.hasOwn(node, '__proto__')) return next.path ? `${next.path}.__proto__` : '__proto__';
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i] as string;
      stack.push({ value: (node as Record<string, unknown>)[k], path: next.path ? `${next.path}.${k}` : k });
    }
  }
  return undefined;
}

export function protoKeyError(path: string): GatewayError {
  const shown = quoteInput(path);
  return new GatewayError('invalid_request', `Request body has a key named '__proto__' (at ${shown}); such keys are not accepted, rename or remove it.`, { param: shown, detail: 'forbidden_key' });
}

export function tooDeepError(what: string, param: string | null = null): GatewayError {
  return new GatewayError('invalid_request', `${what} nests objects/arrays deeper than the limit of ${MAX_JSON_DEPTH} levels.`, { param, detail: 'json_too_deep' });
}

export function duplicateKeyError(key: string): GatewayError {
  const shown = quoteInput(key);
  return new GatewayError('invalid_request', `Request body has the top-level key '${shown}' more than once; send each field once.`, { param: shown, detail: 'duplicate_key' });
}

/** Whether a JSON text nests deeper than MAX_JSON_DEPTH (for JSON carried inside strings). */
export function nestsTooDeep(text: string): boolean {
  return inspectJson(text).tooDeep;
}
