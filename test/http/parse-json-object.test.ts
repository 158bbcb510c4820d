/**
 * parseJsonObject counts the top-level keys while it checks the depth and names a repeated key only
 * when JSON.parse kept fewer: the verdicts must be those of the earlier version (trim, inspectJson,
 * parse, kept below as the reference) on random texts: escapes in keys and strings, duplicates at
 * every level, depths around the limit, other tops, broken and blank texts.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { parseJsonObject } from '../../src/request/body.js';
import { duplicateKeyError, inspectJson, MAX_JSON_DEPTH, protoKeyError, tooDeepError, topLevelKeyCount } from '../../src/wire/json-guard.js';
import { quoteInput } from '../../src/core/quote-input.js';
import { seededRandom } from '../helpers/seeded-random.js';

function referenceParse(text: string): Record<string, unknown> {
  if (text.trim() === '') throw new GatewayError('invalid_request', 'Request body is empty; expected a JSON object.');
  const shape = inspectJson(text);
  if (shape.tooDeep) throw tooDeepError('Request body');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GatewayError('invalid_request', `Request body is not valid JSON: ${quoteInput((err as Error).message, 200)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_request', 'Request body must be a JSON object.');
  }
  if (shape.duplicateKey !== undefined) throw duplicateKeyError(shape.duplicateKey);
  const proto = referenceProtoPath(value, '');
  if (proto !== undefined) throw protoKeyError(proto);
  return value as Record<string, unknown>;
}

/** The first own `__proto__` key in document order, found recursively (the reference for protoKeyPath). */
function referenceProtoPath(value: unknown, at: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = referenceProtoPath(value[i], `${at}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (Object.hasOwn(value, '__proto__')) return at ? `${at}.__proto__` : '__proto__';
  for (const [k, v] of Object.entries(value)) {
    const found = referenceProtoPath(v, at ? `${at}.${k}` : k);
    if (found !== undefined) return found;
  }
  return undefined;
}

function outcome(parse: (t: string) => unknown, text: string): unknown {
  try {
    return { value: parse(text) };
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return { error: err.message, param: err.param, detail: err.detail };
  }
}

const keyTexts = ['"model"', '"mod\\u0065l"', '"messages"', '"a"', '"a\\"b"', '"a\\\\"', '"\\\\"', '"x\\\\\\"y"', '"__proto__"', '"\\u005f_pr\\u006fto__"', '"constructor"', '"1"', '"01"', '""', '"é"', '"{["'];
const scalars = ['0', '-1.5e3', 'true', 'false', 'null', '"s"', '"br]ace}s{[,"', '"esc\\"aped\\\\"', '"\\\\"', '"\\u005c"', '"tab\\tnl\\n"'];

function randomText(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const ws = () => (rand() < 0.2 ? pick([' ', '\n', '\t ', '\r\n  ']) : '');
  const value = (depth: number): string => {
    const r = rand();
    if (depth > 6 || r < 0.4) return pick(scalars);
    const n = Math.floor(rand() * 4);
    const items = Array.from({ length: n }, () => value(depth + 1));
    if (r < 0.6) return `[${ws()}${items.join(`,${ws()}`)}${ws()}]`;
    return `{${ws()}${items.map((v) => `${pick(keyTexts)}${ws()}:${ws()}${v}`).join(`,${ws()}`)}${ws()}}`;
  };
  const r = rand();
  let text: string;
  if (r < 0.1) {
    // Around the depth limit.
    const d = MAX_JSON_DEPTH - 2 + Math.floor(rand() * 4);
    const open = Array.from({ length: d }, () => pick(['[', '{"k":'])).join('');
    const close = [...open.matchAll(/\[|\{/g)].map((m) => (m[0] === '[' ? ']' : '}')).reverse().join('');
    const inner = `${open}1${close}`;
    text = rand() < 0.5 ? inner : `{"model":"m","x":${inner}${rand() < 0.5 ? '' : ',"model":"n"'}}`;
  } else if (r < 0.15) text = pick(['', ' ', '\n\t', '\u00a0', '\ufeff{}', '{', '{"a":1}}', '[]', '"str"', '12', 'nul']);
  else text = ws() + value(0) + ws();
  // Sometimes cut short or with a byte changed.
  const m = rand();
  if (m < 0.05) text = text.slice(0, Math.floor(rand() * text.length));
  else if (m < 0.1 && text.length) {
    const at = Math.floor(rand() * text.length);
    text = text.slice(0, at) + pick(['"', '\\', ',', '{', ']']) + text.slice(at + 1);
  }
  return text;
}

describe('parseJsonObject', () => {
  it('gives the verdicts of trim + inspectJson + parse on random texts', () => {
    const rand = seededRandom(13);
    const seen = { value: 0, duplicate: 0, deep: 0, proto: 0 };
    for (let i = 0; i < 20000; i++) {
      const text = i % 3 === 0 ? `{${randomText(rand).replace(/^\s*[[{]|[\]}]\s*$/g, '')}}` : randomText(rand);
      const expected = outcome(referenceParse, text) as { value?: unknown; detail?: string };
      expect(outcome(parseJsonObject, text), text).toEqual(expected);
      if ('value' in expected) seen.value++;
      if (expected.detail === 'duplicate_key') seen.duplicate++;
      if (expected.detail === 'json_too_deep') seen.deep++;
      if (expected.detail === 'forbidden_key') seen.proto++;
    }
    // Every verdict is exercised.
    expect(seen.value).toBeGreaterThan(1000);
    expect(seen.duplicate).toBeGreaterThan(500);
    expect(seen.deep).toBeGreaterThan(100);
    expect(seen.proto).toBeGreaterThan(100);
  });

  it('refuses a key named __proto__ at any depth, also spelled with escapes, naming where it is', () => {
    expect(() => parseJsonObject('{"__proto__":{"stream":true}}')).toThrow(/key named '__proto__' \(at __proto__\)/);
    expect(() => parseJsonObject('{"a":[{"b":1},{"\\u005f_proto__":{}}]}')).toThrow(/\(at a\[1\]\.__proto__\)/);
    expect(parseJsonObject('{"constructor":{"prototype":{"x":1}},"t":"__proto__"}')).toEqual({ constructor: { prototype: { x: 1 } }, t: '__proto__' });
  });

  it('names a repeated top-level key, also when spelled with escapes', () => {
    expect(() => parseJsonObject('{"model":"a","mod\\u0065l":"b"}')).toThrow(/top-level key 'model' more than once/);
    expect(parseJsonObject('{"a":{"x":1,"x":2},"b":[{"y":1,"y":1}]}')).toEqual({ a: { x: 2 }, b: [{ y: 1 }] });
  });

  it('counts top-level keys, not nested ones or strings', () => {
    expect(topLevelKeyCount('{"a":{"b":1,"c":[1,2]},"d":"e,\\"f\\":g","h":[{"i":1}]}')).toBe(3);
    expect(topLevelKeyCount('[{"a":1}]')).toBe(0);
    expect(topLevelKeyCount('['.repeat(MAX_JSON_DEPTH + 1))).toBe(-1);
  });
});
