/** Which database the standalone server and the CLI use: `--db`, else MODELGATE_DB, else DATABASE_URL, else a SQLite file. */

/** The SQLite file `npm start` creates on first start, in the working directory. */
export const DEFAULT_SQLITE_FILE = 'modelgate.db';

export type DatabaseTarget =
  | { kind: 'sqlite'; file: string }
  | { kind: 'memory' }
  /** `schema`: a PostgreSQL schema of its own (`?schema=name` on the URL), created when missing. */
  | { kind: 'postgres'; url: string; schema?: string };

export function resolveDatabaseTarget(flag: string | undefined, env: Record<string, string | undefined>): DatabaseTarget {
  const raw = flag || env.MODELGATE_DB || env.DATABASE_URL || DEFAULT_SQLITE_FILE;
  return parseDatabaseTarget(raw);
}

export function parseDatabaseTarget(raw: string): DatabaseTarget {
  const value = raw.trim();
  if (value === 'memory' || value === ':memory:') return { kind: 'memory' };
  if (/^postgres(ql)?:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error('the database URL is not a valid URL');
    }
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error('the database URL\'s "schema" must be letters, digits and "_"');
    return { kind: 'postgres', url: url.toString(), ...(schema ? { schema } : {}) };
  }
  const file = value.startsWith('sqlite:') ? value.slice('sqlite:'.length).replace(/^\/\//, '') : value;
  if (!file) throw new Error('--db needs a file name, "memory" or a postgres:// URL');
  return { kind: 'sqlite', file };
}

/** The target for messages: never a password. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === 'memory') return 'SQLite in memory (nothing is kept)';
  if (target.kind === 'sqlite') return `SQLite file ${target.file}`;
  const url = new URL(target.url);
  return `PostgreSQL ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}${target.schema ? ` (schema ${target.schema})` : ''}`;
}
