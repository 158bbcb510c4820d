/** Calendar periods in UTC for budgets: a day, an ISO week (Monday 00:00 UTC), a calendar month. */
export type BudgetPeriod = 'day' | 'week' | 'month';

export interface PeriodBounds {
  /** Names the period in store keys, e.g. `2025-01-31`, `w2025-01-27`, `2025-01`. */
  id: string;
  start: number;
  /** Epoch ms when the next period starts. */
  end: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function periodBounds(period: BudgetPeriod, now: number): PeriodBounds {
  const d = new Date(now);
  const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'day') return { id: ymd(dayStart), start: dayStart, end: dayStart + DAY_MS };
  if (period === 'week') {
    const sinceMonday = (d.getUTCDay() + 6) % 7;
    const start = dayStart - sinceMonday * DAY_MS;
    return { id: `w${ymd(start)}`, start, end: start + 7 * DAY_MS };
  }
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return { id: ymd(start).slice(0, 7), start, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}
