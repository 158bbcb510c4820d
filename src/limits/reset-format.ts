/**
 * Durations as OpenAI writes them in `x-ratelimit-reset-*` (Go's duration format): `20ms`, `1s`,
 * `1.5s`, `6m0s`, `1h2m3s`.
 */
export function formatResetDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms));
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const secondsMs = total % 60_000;
  // Seconds with up to three decimals, trailing zeros dropped (Go prints 1.5s, 2.25s, 3s).
  const seconds = `${Math.floor(secondsMs / 1000)}${secondsMs % 1000 ? `.${String(secondsMs % 1000).padStart(3, '0').replace(/0+$/, '')}` : ''}s`;
  if (hours) return `${hours}h${minutes}m${seconds}`;
  if (minutes) return `${minutes}m${seconds}`;
  return seconds;
}
