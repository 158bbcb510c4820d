/** Numbers, money and times as the console shows them (the browser's locale). */
const int = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const usd = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });

export const fmtInt = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : int.format(n));
export const fmtUsd = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : usd.format(n));
export const fmtMs = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : `${int.format(n)} ms`);

export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A `datetime-local` input's value as an ISO instant (or undefined when empty). */
export function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
