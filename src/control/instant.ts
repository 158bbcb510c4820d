/**
 * The time filters of the admin API and the CLI (`from`, `to`): an ISO 8601 date (`2026-11-28`),
 * an ISO 8601 instant (`2026-11-28T10:00:00Z`, `...T10:00+02:00`; without an offset: UTC), or epoch
 * milliseconds (10 digits or more). Only real calendar dates: `Date.parse` alone took
 * `2026-11-28 junk` for June and `2026-02-30` for March 2.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;
const EPOCH_MS = /^\d{10,}$/;
const DAY_MS = 86_400_000;

function realDate(y: string, m: string, d: string): boolean {
  const at = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return at.getUTCFullYear() === Number(y) && at.getUTCMonth() === Number(m) - 1 && at.getUTCDate() === Number(d);
}

/** Epoch ms of `value` and whether it was a date alone; undefined when it is none of the forms above. */
export function parseInstant(value: string): { ms: number; dateOnly: boolean } | undefined {
  if (EPOCH_MS.test(value)) return { ms: Number(value), dateOnly: false };
  const date = DATE.exec(value);
  if (date) return realDate(date[1] as string, date[2] as string, date[3] as string) ? { ms: Date.parse(`${value}T00:00:00Z`), dateOnly: true } : undefined;
  const instant = INSTANT.exec(value);
  if (!instant || !realDate(instant[1] as string, instant[2] as string, instant[3] as string)) return undefined;
  if (Number(instant[4]) > 23 || Number(instant[5]) > 59 || Number(instant[6] ?? 0) > 59) return undefined;
  const ms = Date.parse(instant[7] ? value : `${value}Z`);
  return Number.isFinite(ms) ? { ms, dateOnly: false } : undefined;
}

/** A range's end: a date alone includes that whole day (its next midnight, UTC). */
export function rangeEndMs(parsed: { ms: number; dateOnly: boolean }): number {
  return parsed.ms + (parsed.dateOnly ? DAY_MS : 0);
}
