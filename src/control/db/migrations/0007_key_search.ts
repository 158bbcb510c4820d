/**
 * Version 7 of the store: `api_keys.search_text`, what a key list's `search` matches (name, owner,
 * metadata labels and values, folded in JavaScript: see keys/key-search.ts), filled in for the keys
 * already stored. Released: never edit it; a change is a new migration.
 */
import type { Kysely } from 'kysely';
import { keySearchText } from '../../keys/key-search.js';

interface KeyRow {
  id: string;
  name: string;
  owner: string | null;
  metadata: string;
}

function metadataOf(text: string): Record<string, string> {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('search_text', 'text', (c) => c.notNull().defaultTo('')).execute();
  const keys = db as unknown as Kysely<{ api_keys: KeyRow & { search_text: string } }>;
  const rows = await keys.selectFrom('api_keys').select(['id', 'name', 'owner', 'metadata']).execute();
  for (const r of rows) {
    await keys.updateTable('api_keys').set({ search_text: keySearchText(r.name, r.owner, metadataOf(r.metadata)) }).where('id', '=', r.id).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('search_text').execute();
}
