/**
 * The ledger's write path alone, as the standalone server runs it: node/control.ts's control plane
 * on a SQLite file (the writer thread unless MODELGATE_LEDGER_WRITER=inline), rows enqueued at a
 * steady rate as requests would, CPU of the whole process (every thread, user + system) per row.
 * Pin it to one core (`taskset -c 0`) to count the writer thread's work on the same core as the
 * bench does. LEDGER_RATE rows/s (default 9000) for LEDGER_MS (default 6000); LEDGER_MODE=none
 * enqueues nowhere (the loop's own cost, to subtract).
 *
 *   taskset -c 0 node --import tsx bench/ledger-sink.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openControlPlane } from '../node/control.js';
import type { LedgerRow } from '../src/control/ledger/ledger-row.js';

const rate = Number(process.env.LEDGER_RATE ?? 9000);
const ms = Number(process.env.LEDGER_MS ?? 6000);
const mode = process.env.LEDGER_MODE ?? 'store';
const price = { inputPerMTok: 0.15, outputPerMTok: 0.6 };

function row(i: number): LedgerRow {
  return {
    traceId: `${Date.now().toString(16)}${i.toString(16).padStart(16, '0')}`.slice(0, 32),
    requestId: null,
    time: Date.now(),
    keyId: 'key_01JABCDEFGHJKMNPQRSTVWXYZ',
    method: 'POST',
    route: '/v1/chat/completions',
    protocol: 'openai-chat',
    model: 'mock-chat',
    requestedModel: 'mock-chat',
    resolvedModel: 'mock-chat-2025-01-01',
    provider: 'mock',
    deployment: 'mock-chat',
    status: 200,
    errorCode: null,
    attempts: 1,
    fallbacks: 0,
    inputTokens: 12,
    outputTokens: 9,
    cachedTokens: 0,
    reasoningTokens: null,
    images: null,
    videoSeconds: null,
    costUsd: 0.0000072,
    price,
    latencyMs: 3,
    ttftMs: null,
    stream: false,
    byok: false,
    cacheHit: false,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'modelgate-ledger-sink-'));
const opened = await openControlPlane(join(dir, 'store.db'), process.env);
const ledger = opened.control.ledger;
// Warm up: names cached, statements prepared, the thread started.
for (let i = 0; i < 3000; i++) ledger.enqueue(row(i));
await ledger.flush();
await new Promise((r) => setTimeout(r, 300));

const perTick = Math.max(1, Math.round(rate / 100));
let n = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    for (let i = 0; i < perTick; i++) {
      const r = row(n++);
      if (mode !== 'none') ledger.enqueue(r);
    }
    if (performance.now() - t0 >= ms) {
      clearInterval(timer);
      resolve();
    }
  }, 10);
});
await ledger.flush();
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - t0;
const stats = ledger.stats();
console.log(
  JSON.stringify({
    mode,
    writer: process.env.MODELGATE_LEDGER_WRITER ?? 'thread',
    rows: n,
    written: stats.written - 3000,
    wallMs: Math.round(wall),
    userUsPerRow: +(cpu.user / n).toFixed(2),
    sysUsPerRow: +(cpu.system / n).toFixed(2),
    cpuUsPerRow: +((cpu.user + cpu.system) / n).toFixed(2),
  }),
);
await opened.close();
rmSync(dir, { recursive: true, force: true });
