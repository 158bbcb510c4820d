/**
 * Node-only: the secret that encrypts store keys' providerKeys at rest (see
 * src/control/keys/provider-key-cipher.ts). The config's `control.secret`, else MODELGATE_SECRET.
 * Without either, the embedded SQLite default generates one on first use and keeps it in a file
 * beside the database (`<database file>.secret`, mode 0600; back it up with the database); an
 * in-memory store gets a fresh one (nothing is kept anyway). PostgreSQL, shared by several
 * instances, gets none: the operator sets the same secret on every instance, and until then a key
 * cannot be given providerKeys (409 naming why).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { MIN_SECRET_CHARS } from '../src/control/keys/provider-key-cipher.js';
import type { DatabaseTarget } from './db/database-target.js';

export interface ControlSecret {
  secret?: string;
  /** Where it came from, for the start-up message (never the value). */
  source: string;
}

/** The file beside a SQLite database that holds its generated secret. */
export function secretFileOf(databaseFile: string): string {
  return `${databaseFile}.secret`;
}

function checked(value: string, from: string): string {
  if (value.length < MIN_SECRET_CHARS) throw new Error(`${from} must be at least ${MIN_SECRET_CHARS} characters (it has ${value.length})`);
  return value;
}

export function resolveControlSecret(target: DatabaseTarget, env: Record<string, string | undefined>, configSecret?: string): ControlSecret {
  if (configSecret) return { secret: checked(configSecret, 'control.secret'), source: 'control.secret in the config' };
  if (env.MODELGATE_SECRET) return { secret: checked(env.MODELGATE_SECRET, 'MODELGATE_SECRET'), source: 'MODELGATE_SECRET' };
  if (target.kind === 'memory') return { secret: randomBytes(32).toString('base64url'), source: 'generated for this process (in-memory store)' };
  if (target.kind === 'postgres') return { source: 'none (set MODELGATE_SECRET to store providerKeys)' };
  const file = secretFileOf(target.file);
  return { secret: fileSecret(file), source: `the file ${file}` };
}

/**
 * The secret in `file`, created when missing: written to a temporary file (0600) first, then
 * linked into place, which fails if the file exists; so of two processes starting at once one
 * writes it and the other reads it, never half-written.
 */
function fileSecret(file: string): string {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create the secret file ${file}: ${(err as Error).message}`);
  } finally {
    rmSync(temp, { force: true });
  }
  // Readable by its owner only, even if it was copied with looser permissions.
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return checked(readFileSync(file, 'utf8').trim(), `the secret file ${file}`);
}
