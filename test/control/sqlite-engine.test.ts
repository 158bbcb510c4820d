/**
 * The SQLite engine under the control plane: better-sqlite3 before Node 24, node:sqlite from 24
 * on (better-sqlite3 12 aborts there when the GC finalizes a statement). Whatever engine this
 * runtime gets must survive many statements and forced collections, and read and write through
 * Kysely the same way.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../node/db/open-database.js';
import { openSqliteFile, sqliteEngineFor, withStatementCache } from '../../node/db/sqlite-engine.js';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const dir = mkdtempSync(join(tmpdir(), 'mg-sqlite-engine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nodeMajor = Number(process.versions.node.split('.')[0]);

describe('the SQLite engine', () => {
  it('is better-sqlite3 before Node 24 and node:sqlite from 24 on; MODELGATE_SQLITE_ENGINE overrides', () => {
    expect(sqliteEngineFor({}, '20.20.2')).toBe('better-sqlite3');
    expect(sqliteEngineFor({}, '22.22.0')).toBe('better-sqlite3');
    expect(sqliteEngineFor({}, '24.21.0')).toBe('node:sqlite');
    expect(sqliteEngineFor({}, '26.12.1')).toBe('node:sqlite');
    expect(sqliteEngineFor({ MODELGATE_SQLITE_ENGINE: 'better-sqlite3' }, '24.21.0')).toBe('better-sqlite3');
    expect(sqliteEngineFor({ MODELGATE_SQLITE_ENGINE: 'node' }, '22.22.0')).toBe('node:sqlite');
    expect(() => sqliteEngineFor({ MODELGATE_SQLITE_ENGINE: 'sqlite3' }, '24.21.0')).toThrow(/MODELGATE_SQLITE_ENGINE must be/);
  });

  it('prepares each SQL text once and reuses the statement; the least recently used goes beyond the cache size', () => {
    const prepared: string[] = [];
    let closed = 0;
    const inner: SqliteDatabase = {
      close: () => void closed++,
      prepare: (text: string): SqliteStatement => {
        prepared.push(text);
        return { reader: true, all: () => [{ text }], run: () => ({ changes: 0, lastInsertRowid: 0 }), iterate: () => [][Symbol.iterator]() };
      },
    };
    const cached = withStatementCache(inner, 2);
    const a = cached.prepare('select a');
    expect(cached.prepare('select a')).toBe(a);
    cached.prepare('select b');
    cached.prepare('select a'); // a is now the most recently used
    cached.prepare('select c'); // evicts b
    expect(cached.prepare('select a')).toBe(a);
    cached.prepare('select b');
    expect(prepared).toEqual(['select a', 'select b', 'select c', 'select b']);
    cached.close();
    expect(closed).toBe(1);
  });

  it('node:sqlite opens where the runtime has it, and names the way out where it does not', async () => {
    const file = join(dir, 'explicit.db');
    if (nodeMajor < 22) {
      await expect(openSqliteFile(file, 'node:sqlite')).rejects.toThrow(/MODELGATE_SQLITE_ENGINE=better-sqlite3/);
      return;
    }
    const handle = await openSqliteFile(file, 'node:sqlite');
    expect(handle.engine).toBe('node:sqlite');
    handle.exec('BEGIN');
    expect(handle.inTransaction()).toBe(true);
    handle.exec('ROLLBACK');
    expect(handle.inTransaction()).toBe(false);
    expect(handle.database.prepare('select 1 as one').all([])).toEqual([{ one: 1 }]);
    handle.database.close();
  });

  it('migrates, writes and reads a key through Kysely, with RETURNING and plain row objects', async () => {
    const opened = await openDatabase({ kind: 'sqlite', file: join(dir, 'rw.db') });
    try {
      const rows = await sql<{ n: number; s: string }>`select 41 + 1 as n, 'x' || 'y' as s`.execute(opened.db);
      expect(rows.rows).toEqual([{ n: 42, s: 'xy' }]);
      expect(Object.getPrototypeOf(rows.rows[0])).toBe(Object.prototype);
      await sql`create table t (id integer primary key, v text not null)`.execute(opened.db);
      const inserted = await sql<{ id: number }>`insert into t (v) values ('a'), ('b') returning id`.execute(opened.db);
      expect(inserted.rows.map((r) => r.id)).toEqual([1, 2]);
      const updated = await sql`update t set v = 'c' where id = 2`.execute(opened.db);
      expect(updated.numAffectedRows).toBe(1n);
      const read = await sql<{ v: string }>`select v from t order by id`.execute(opened.db);
      expect(read.rows).toEqual([{ v: 'a' }, { v: 'c' }]);
    } finally {
      await opened.close();
    }
  });

  it("survives thousands of statements and forced collections in a process of this runtime (the shipped server's engine)", () => {
    const script = `
      const { openDatabase } = await import(${JSON.stringify(join(fileURLToPath(new URL('../../node/db/open-database.ts', import.meta.url))))});
      const { sql } = await import('kysely');
      const opened = await openDatabase({ kind: 'sqlite', file: ${JSON.stringify(join(dir, 'gc.db'))} });
      let total = 0;
      for (let i = 0; i < 3000; i++) {
        const r = await sql\`select \${i} as n\`.execute(opened.db);
        total += r.rows[0].n;
        if (i % 500 === 0) { globalThis.gc(); await new Promise((resolve) => setTimeout(resolve, 5)); }
      }
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await opened.close();
      globalThis.gc();
      console.log('total=' + total);
    `;
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).not.toMatch(/Assertion failed/);
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(`total=${(2999 * 3000) / 2}`);
  }, 150_000);
});
