/**
 * The control plane as the standalone server opens it (node/control.ts) on a SQLite file in a temp
 * dir, with one key created in the store: what the control-* bench children and bench/micro.ts
 * (MICRO_CONTROL=sqlite) run with. Imported dynamically, so a config-keys child loads none of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlane } from '../src/control/control-plane.js';
import { openControlPlane } from '../node/control.js';

export interface BenchControlStore {
  control: ControlPlane;
  /** The store key's secret (the bench's requests send it). */
  platformKey: string;
  /** Closes the control plane (writing queued rows) and removes the temp dir. */
  close(): Promise<void>;
  /** Removes the temp dir at once (a child about to exit: its queued rows do not matter). */
  removeSync(): void;
}

export async function openBenchControlStore(name: string): Promise<BenchControlStore> {
  const dir = mkdtempSync(join(tmpdir(), `modelgate-${name}-control-`));
  // The ledger's settings as the standalone server reads them (MODELGATE_LEDGER_WRITER=inline: the main thread; MODELGATE_LEDGER_FLUSH_MS, ...).
  const ledgerEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MODELGATE_LEDGER_')));
  const opened = await openControlPlane(join(dir, 'store.db'), ledgerEnv);
  const created = await opened.control.keys.create({ name }, name, { configKeys: [] });
  const platformKey = created.body.key;
  if (platformKey === undefined) throw new Error('the store did not answer the new key with its secret');
  return {
    control: opened.control,
    platformKey,
    async close() {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
    removeSync: () => rmSync(dir, { recursive: true, force: true }),
  };
}
