/**
 * Type guards for upstream stream chunks, built like a schema but checking in place: a zod parse
 * per chunk copies every object it walks and costs several microseconds per event, while a stream
 * decoder reads a handful of fields. A check names exactly those fields and their types (objects
 * stay loose: other keys are not looked at) and narrows the parsed JSON itself, so a malformed
 * chunk is still refused before a decoder reads it, without a copy.
 */
import type { z } from 'zod';
import { isJsonObject } from './json.js';

/** True when `v` has the wire type `T`. */
export type Check<T> = (v: unknown) => v is T;

type Shape = Record<string, Check<unknown>>;
type Checked<C> = C extends Check<infer T> ? T : never;
/** The object a shape checks: its listed fields typed, every other field unknown (loose, like the wire). */
type ObjectOf<S extends Shape> = { [K in keyof S]: Checked<S[K]> } & Record<string, unknown>;

export const str = (v: unknown): v is string => typeof v === 'string';
export const num = (v: unknown): v is number => typeof v === 'number';

/** Absent (undefined) or `c`. */
export function optional<T>(c: Check<T>): Check<T | undefined> {
  return (v): v is T | undefined => v === undefined || c(v);
}

/** Absent, null or `c` (compatible servers send null where the vendor leaves a field out). */
export function nullish<T>(c: Check<T>): Check<T | null | undefined> {
  return (v): v is T | null | undefined => v === undefined || v === null || c(v);
}

/** An array whose every item passes `c`. */
export function arrayOf<T>(c: Check<T>): Check<T[]> {
  return (v): v is T[] => {
    if (!Array.isArray(v)) return false;
    for (const item of v) if (!c(item)) return false;
    return true;
  };
}

/** A JSON object whose listed fields pass their checks; other fields are allowed and not looked at. */
export function object<S extends Shape>(shape: S): Check<ObjectOf<S>> {
  const keys = Object.keys(shape);
  const checks = keys.map((k) => shape[k] as Check<unknown>);
  return (v): v is ObjectOf<S> => {
    if (!isJsonObject(v)) return false;
    for (let i = 0; i < keys.length; i++) if (!(checks[i] as Check<unknown>)(v[keys[i] as string])) return false;
    return true;
  };
}

/** A zod schema as a check, for the rare parts of a stream (usage, once or twice per answer). */
export function bySchema<S extends z.ZodType>(schema: S): Check<z.output<S>> {
  return (v): v is z.output<S> => schema.safeParse(v).success;
}
