/**
 * findTopLevelValue finds a top-level member's value span in a JSON object text, keys compared in
 * place or, with an escape, decoded: over random objects (escaped keys, nested look-alike keys,
 * strings holding quotes and braces) the span always holds exactly what JSON.parse gives.
 */
import { describe, expect, it } from 'vitest';
import { findTopLevelValue, replaceTopLevelString } from '../../src/wire/json-splice.js';
import { seededRandom } from '../helpers/seeded-random.js';

describe('findTopLevelValue', () => {
  it.each([
    ['plain', '{"model":"a","stream":true}', 'model', '"a"'],
    ['an escaped key', '{"mod\\u0065l":"b"}', 'model', '"b"'],
    ['an escaped quote in a key before it', '{"a\\"model":1,"model":2}', 'model', '2'],
    ['a nested key of the same name first', '{"x":{"model":"in"},"model":"out"}', 'model', '"out"'],
    ['a longer key that starts with it', '{"models":1,"model":2}', 'model', '2'],
    ['spaces', '{ "model" : [1, {"a":"}"}] }', 'model', '[1, {"a":"}"}]'],
  ])('%s', (_name, text, field, value) => {
    const span = findTopLevelValue(text, field);
    expect(span && text.slice(span.start, span.end)).toBe(value);
  });

  it('undefined when the member is not at the top level', () => {
    expect(findTopLevelValue('{"x":{"model":1},"modelx":2,"mode":3}', 'model')).toBeUndefined();
    expect(replaceTopLevelString('{"x":{"model":1}}', 'model', 'y')).toBeUndefined();
  });

  it('over random objects the span holds exactly the parsed value', () => {
    const random = seededRandom(77);
    const keys = ['model', 'models', 'mode', 'mod\\u0065l', 'a\\"b', 'stream', 'm\\\\', ''];
    const values = ['1', '"model"', '"}{\\"model\\":"', '{"model":2}', '[{"model":3}]', 'null', 'true', '"\\\\"'];
    const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)] as T;
    for (let i = 0; i < 3000; i++) {
      const members: string[] = [];
      const count = Math.floor(random() * 5);
      for (let m = 0; m < count; m++) members.push(`${random() < 0.2 ? ' ' : ''}"${pick(keys)}"${random() < 0.2 ? ' ' : ''}:${pick(values)}`);
      const text = `{${members.join(',')}}`;
      const parsed = JSON.parse(text) as Record<string, unknown>;
      for (const field of ['model', 'stream', 'a"b']) {
        const span = findTopLevelValue(text, field);
        if (!(field in parsed)) {
          expect(span, text).toBeUndefined();
          continue;
        }
        // JSON.parse keeps the last of repeated keys; the splice finds the first (bodies with
        // repeated top-level keys are refused before it runs, see json-guard.ts).
        if (!span) throw new Error(`no span for ${field} in ${text}`);
        const repeated = members.filter((mm) => field in (JSON.parse(`{${mm}}`) as object)).length > 1;
        if (!repeated) expect(JSON.parse(text.slice(span.start, span.end)), text).toEqual(parsed[field]);
      }
    }
  });
});
