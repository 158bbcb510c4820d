/** Plain-text tables for the CLI's operator commands (no colours, widths from the content). */

/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides, which would otherwise reach the
 * operator's terminal as they are: a key name or a model id a caller sent (`\u001b]0;...\u0007`,
 * `\u001b[2J`) could retitle the window, clear the screen or reorder what a row shows.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `s` with every unprintable character written as an escape (`\x1b`, `\u202e`): shown, never run. */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const shown = rows.map((r) => r.map(printable));
  const widths = headers.map((h, i) => Math.max(h.length, ...shown.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ').trimEnd();
  return [line(headers), ...shown.map(line)].join('\n') + '\n';
}
