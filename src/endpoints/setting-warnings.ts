/**
 * Tells the caller which settings the upstream could not take as sent: the encoder's warnings in
 * the client's own field names, as the `x-modelgate-warnings` response header (compact, ASCII,
 * bounded) and in the hook events.
 */
import type { IRWarning } from '../ir/types.js';
import type { SettingWarning } from '../observability/hooks.js';
import type { ClientCodec } from '../protocols/types.js';
import { Reply } from '../reply/reply.js';

export const WARNINGS_HEADER = 'x-modelgate-warnings';
/** Longest header value; proxies commonly cap a header line at a few KiB. */
export const MAX_WARNINGS_HEADER = 1024;
/** Longest setting name or action kept in the header (names can come from the client's own keys). */
const MAX_PART = 120;

/** The encoder's warnings in the client's vocabulary, each setting + action once. */
export function settingWarnings(client: ClientCodec, warnings: IRWarning[], body: Record<string, unknown>): SettingWarning[] {
  const seen = new Set<string>();
  const out: SettingWarning[] = [];
  for (const w of warnings) {
    const setting = client.settingName(w.setting, body);
    const key = `${setting}\n${w.action}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ setting, action: w.action, message: w.message });
  }
  return out;
}

/** Printable ASCII without `;` (the entry separator), cut to MAX_PART characters. */
function headerText(s: string): string {
  const clean = s.replace(/[^\x20-\x3a\x3c-\x7e]/g, '?');
  return clean.length > MAX_PART ? `${clean.slice(0, MAX_PART - 3)}...` : clean;
}

/** `setting: action; setting: action`, ending in `; +N more` when the list does not fit. */
export function warningsHeaderValue(warnings: SettingWarning[]): string | undefined {
  if (warnings.length === 0) return undefined;
  let value = '';
  for (let i = 0; i < warnings.length; i++) {
    const w = warnings[i] as SettingWarning;
    const entry = `${value ? '; ' : ''}${headerText(w.setting)}: ${headerText(w.action)}`;
    const left = warnings.length - i - 1;
    // Keep room for the "; +N more" tail while entries remain.
    const reserve = left > 0 ? `; +${left} more`.length : 0;
    if (value.length + entry.length + reserve > MAX_WARNINGS_HEADER) return `${value}${value ? '; ' : ''}+${warnings.length - i} more`;
    value += entry;
  }
  return value;
}

/** What a finished answer says when the client asked to store it and the store failed (or was late). */
export const NOT_STORED: SettingWarning = {
  setting: 'store',
  action: 'not stored (the response store is unavailable)',
  message: 'The answer was not stored: the response store did not answer in time, so it cannot be read back or continued.',
};

/**
 * The answer as produced, telling the caller (header and hook events) that it was not stored: it
 * was generated (and paid for), so it is delivered rather than replaced by a 503, but it cannot be
 * read back or continued.
 */
export function withNotStoredWarning(event: { warnings?: SettingWarning[] }, res: Reply): Reply {
  event.warnings = [...(event.warnings ?? []), NOT_STORED];
  const headers = new Headers(res.headers);
  const before = headers.get(WARNINGS_HEADER);
  const entry = `${NOT_STORED.setting}: ${NOT_STORED.action}`;
  headers.set(WARNINGS_HEADER, before ? `${before}; ${entry}` : entry);
  return new Reply(res.status, headers, res.body);
}
