import { stringEnd } from './json-guard.js';

/**
 * Rewrites one top-level string field of a JSON object text without re-serializing the rest, so a
 * pass-through body stays byte-for-byte what the client sent apart from that field.
 * Returns undefined when the text has no such top-level field.
 */
export function replaceTopLevelString(text: string, field: string, value: string): string | undefined {
  const span = findTopLevelValue(text, field);
  if (!span) return undefined;
  return text.slice(0, span.start) + JSON.stringify(value) + text.slice(span.end);
}

/** Inserts `"field":<json>` as the first member of the top-level object. */
export function insertTopLevelField(text: string, field: string, json: string): string {
  const open = text.indexOf('{');
  if (open < 0) return text;
  const rest = text.slice(open + 1);
  const empty = rest.trimStart().startsWith('}');
  return `${text.slice(0, open + 1)}${JSON.stringify(field)}:${json}${empty ? '' : ','}${rest}`;
}

/**
 * Appends `"field":<json>` as the last member of a JSON object text (one JSON.parse accepted as an
 * object, without that field), keeping the rest as it is; undefined when the text is no object.
 */
export function appendTopLevelField(text: string, field: string, json: string): string | undefined {
  let close = text.length - 1;
  while (close >= 0 && isSpace(text.charCodeAt(close))) close--;
  if (text.charCodeAt(close) !== 125 /* } */) return undefined;
  let last = close - 1;
  while (last >= 0 && isSpace(text.charCodeAt(last))) last--;
  if (last < 0) return undefined;
  // Right after the last value (or the opening brace of an empty object).
  const empty = text.charCodeAt(last) === 123; /* { */
  return `${text.slice(0, last + 1)}${empty ? '' : ','}${JSON.stringify(field)}:${json}${text.slice(last + 1)}`;
}

/** Finds the [start, end) span of a top-level member's value in a JSON object text. */
export function findTopLevelValue(text: string, field: string): { start: number; end: number } | undefined {
  let depth = 0;
  let i = 0;
  const n = text.length;
  let expectKey = false;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        const isField = keyIs(text, i, end, field);
        let j = end;
        while (j < n && isSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) !== 58 /* : */) return undefined;
        j++;
        while (j < n && isSpace(text.charCodeAt(j))) j++;
        if (isField) return { start: j, end: skipValue(text, j) };
        i = skipValue(text, j);
        expectKey = false;
        continue;
      }
      i = end;
      continue;
    }
    if (ch === 123 /* { */ || ch === 91 /* [ */) {
      depth++;
      if (depth === 1 && ch === 123) expectKey = true;
    } else if (ch === 125 || ch === 93) {
      depth--;
    } else if (ch === 44 /* , */ && depth === 1) {
      expectKey = true;
    }
    i++;
  }
  return undefined;
}

/**
 * Whether the key literal at [start, end) is `field`, compared in place (no substring per key);
 * decoded only when it has an escape (`"mod\u0065l"` is `model`).
 */
function keyIs(text: string, start: number, end: number, field: string): boolean {
  const last = end - 1;
  if (last <= start || text.charCodeAt(last) !== 34) return (JSON.parse(text.slice(start, end)) as string) === field;
  for (let k = start + 1; k < last; k++) if (text.charCodeAt(k) === 92) return (JSON.parse(text.slice(start, end)) as string) === field;
  return last - start - 1 === field.length && text.startsWith(field, start + 1);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function skipValue(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === 34) return stringEnd(text, start);
  if (c === 123 || c === 91) {
    let depth = 0;
    let i = start;
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === 34) {
        i = stringEnd(text, i);
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  let i = start;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || isSpace(d)) break;
    i++;
  }
  return i;
}
