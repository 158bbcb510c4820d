/**
 * The packing of ledger rows for the writer thread (node/db/ledger-transfer.ts): every field of a
 * LedgerRow comes back as it was (nulls, zeros, booleans, a shared pricing object, strings shared
 * between rows and of one row only), through a real postMessage that moves the buffer.
 */
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { packRows, unpackRows, type PackedRows } from '../../node/db/ledger-transfer.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';

const price = { inputPerMTok: 2.5, outputPerMTok: 10, cachedInputPerMTok: 1.25 };

/** Every field set, none to a value another field has (a field packed into the wrong slot shows). */
const full: LedgerRow = {
  traceId: 'trace-full', requestId: 'req-1', time: 1_764_316_800_123, keyId: 'key_a', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat',
  model: 'gpt-4o', requestedModel: 'gpt-4o-alias', resolvedModel: 'gpt-4o-2024-08-06', provider: 'openai', deployment: 'gpt-4o-eu', status: 502,
  errorCode: 'bad_gateway', attempts: 3, fallbacks: 2, inputTokens: 1200, outputTokens: 340, cachedTokens: 1024, reasoningTokens: 64, images: 2,
  videoSeconds: 8.5, costUsd: 0.0123456789, price, latencyMs: 1534, ttftMs: 210, stream: true, byok: true, cacheHit: true,
};

/** Every nullable field null, every number zero, every flag false. */
const bare: LedgerRow = {
  traceId: 'trace-bare', requestId: null, time: 0, keyId: 'key_a', method: 'GET', route: '/v1/models', protocol: null, model: null, requestedModel: null,
  resolvedModel: null, provider: null, deployment: null, status: 200, errorCode: null, attempts: 0, fallbacks: 0, inputTokens: 0, outputTokens: null,
  cachedTokens: null, reasoningTokens: null, images: null, videoSeconds: null, costUsd: 0, price: null, latencyMs: 0, ttftMs: null, stream: false,
  byok: false, cacheHit: false,
};

describe('ledger rows packed for the writer thread', () => {
  it('round-trips every field of every row', () => {
    const rows = [full, bare, { ...full, traceId: 'trace-3', requestId: null, model: 'other' }];
    const back = unpackRows(packRows(rows));
    expect(back).toEqual(rows);
    expect(Object.keys(back[0] as LedgerRow).sort()).toEqual(Object.keys(full).sort());
  });

  it('stores a repeated string and a shared price once per part; appends to rows already there', () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ ...full, traceId: `t${i}` }));
    const packed = packRows(rows);
    expect(packed.prices).toEqual([price]);
    expect(packed.strings.filter((s) => s === 'gpt-4o')).toHaveLength(1);
    expect(packed.strings.filter((s) => s.startsWith('t') && s !== 'trace-full')).toHaveLength(50);
    const into = [bare];
    expect(unpackRows(packed, into)).toBe(into);
    expect(into.map((r) => r.traceId)).toEqual(['trace-bare', ...rows.map((r) => r.traceId)]);
  });

  it('crosses a MessagePort with its buffer moved, not copied', () => {
    const { port1, port2 } = new MessageChannel();
    const packed = packRows([full, bare]);
    port1.postMessage(packed, [packed.numbers.buffer]);
    expect(packed.numbers.byteLength).toBe(0);
    const received = receiveMessageOnPort(port2)?.message as PackedRows;
    expect(unpackRows(received)).toEqual([full, bare]);
    port1.close();
  });
});
