/**
 * The CLI's operator commands (`modelgate keys …`, `modelgate usage …`): each works on the same
 * database the server uses (`--db`, MODELGATE_DB, DATABASE_URL) and prints a table or, with
 * `--json`, JSON. One line per command; each module is loaded only when its command runs.
 */
export type { Subcommand } from './subcommand.js';
import type { Subcommand } from './subcommand.js';

export const SUBCOMMANDS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  keys: async () => (await import('./keys-cli.js')).runKeys,
  usage: async () => (await import('./usage-cli.js')).runUsage,
};
