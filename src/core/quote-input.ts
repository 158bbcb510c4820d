/**
 * Caller input quoted in an error message is cut to a readable length: a 1 MiB model id must not
 * come back as a 1 MiB error (nor fill a log line or a hook event).
 */
const MAX_QUOTED_CHARS = 120;

/** `value` as text, at most `max` characters, with an ellipsis when it was longer. */
export function quoteInput(value: unknown, max = MAX_QUOTED_CHARS): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= max) return text;
  let end = max;
  // Never split a surrogate pair (a lone half would be invalid UTF-16 in the JSON answer).
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
