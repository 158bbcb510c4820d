import { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import { quoteInput } from '../../core/quote-input.js';

/** `['messages', 0, 'role']` -> `messages[0].role` */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

/** Parses with a zod schema; a failure is a 400 whose message and `param` name the field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, prefix?: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = pickIssue(result.error.issues);
  // A field the schema does not know is named itself, not the object holding it.
  const unknownKey = issue?.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const path = [...(prefix ? [prefix] : []), ...(issue?.path ?? []), ...(unknownKey !== undefined ? [unknownKey] : [])];
  // Paths hold caller-chosen keys and zod messages can quote input: both are cut to a readable length.
  const fullParam = formatPath(path);
  const param = fullParam ? quoteInput(fullParam) : null;
  const message = issue ? `Invalid value for '${param ?? 'body'}': ${quoteInput(issue.message, 300)}` : 'Invalid request body.';
  throw new GatewayError('invalid_request', message, { param });
}

/**
 * `schema` with zod's compiled fast path (z.compile), built on first use: a valid value is checked
 * and copied by generated code, at about half the time and garbage of the interpreter; an invalid
 * one falls back to the interpreter, so every error stays the same. Where `new Function` is refused
 * (Workers), z.compile hands the schema back unchanged. Meant for module-level schemas: each call
 * of this function compiles its own copy.
 */
export function compiledOnFirstUse<T extends z.ZodType>(schema: T): () => T {
  let compiled: T | undefined;
  return () => (compiled ??= z.compile(schema));
}

/** Prefers the deepest issue (unions report their members' issues nested). */
function pickIssue(issues: z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  const first = issues[0];
  if (!first) return undefined;
  if (first.code === 'invalid_union' && 'errors' in first && Array.isArray(first.errors)) {
    const nested = (first.errors as z.core.$ZodIssue[][])
      .map((errs) => errs[0])
      .filter((x): x is z.core.$ZodIssue => x !== undefined)
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (nested && nested.path.length > 0) return { ...nested, path: [...first.path, ...nested.path] };
  }
  return first;
}
