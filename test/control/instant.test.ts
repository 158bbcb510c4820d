/**
 * The admin API's and the CLI's time filters take ISO 8601 dates and instants (and epoch ms) and
 * nothing else: no `Date.parse` guesses, no impossible calendar dates; a date as `to` includes its
 * day on every route (the audit log's too), and `to` must come after `from`.
 */
import { describe, expect, it } from 'vitest';
import { timeParam, timeRange } from '../../src/control/admin/http.js';
import { parseInstant } from '../../src/control/instant.js';

describe('parseInstant', () => {
  it('reads dates, instants with or without an offset (UTC), and epoch ms', () => {
    expect(parseInstant('2026-11-28')).toEqual({ ms: Date.UTC(2026, 10, 28), dateOnly: true });
    expect(parseInstant('2026-11-28T10:30:00Z')?.ms).toBe(Date.UTC(2026, 10, 28, 10, 30));
    expect(parseInstant('2026-11-28T10:30:00.123+02:00')?.ms).toBe(Date.UTC(2026, 10, 28, 8, 30, 0, 123));
    expect(parseInstant('2026-11-28T10:30')?.ms).toBe(Date.UTC(2026, 10, 28, 10, 30));
    expect(parseInstant('1764325800000')).toEqual({ ms: 1764325800000, dateOnly: false });
  });

  it('refuses what Date.parse would guess at, and impossible dates', () => {
    for (const bad of ['2026-11-28 junk', 'hello 1', '12', '2026-02-30', '2026-13-01', '2026-11-28T25:00Z', '2026-11-28T10:61Z', 'Nov 28 2026', '2026/11/28', '']) {
      expect(parseInstant(bad), bad).toBeUndefined();
    }
  });
});

describe('timeParam and timeRange', () => {
  it('a date as `to` is the end of that day; a bad value is a 400 naming the parameter', () => {
    expect(timeParam('to', '2026-11-28')).toBe(Date.UTC(2026, 10, 29));
    expect(timeParam('from', '2026-11-28')).toBe(Date.UTC(2026, 10, 28));
    expect(timeRange('2026-11-28', '2026-11-28')).toEqual({ from: Date.UTC(2026, 10, 28), to: Date.UTC(2026, 10, 29) });
    expect(() => timeParam('from', '2026-11-28 junk')).toThrow(expect.objectContaining({ status: 400, param: 'from' }));
    expect(() => timeRange('2026-11-29', '2026-11-28')).toThrow(expect.objectContaining({ status: 400, param: 'to' }));
  });
});
