/**
 * What a caller or an upstream puts into the usage ledger cannot poison it:
 * - a model id with a lone UTF-16 surrogate (not valid Unicode) or over 256 characters is a 400
 *   naming the model, and the row of that refusal holds well-formed text that a real database
 *   stores and finds again (a lone surrogate once stalled every later ledger write: its name could
 *   never be found after storing, and the batch was retried for ever);
 * - token counts no request can have (1e300, "NaN", -1) from a relayed answer are left out, not
 *   summed into the rollups;
 * - a response cache hit is recorded as one (`cacheHit`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';
import { openTestDatabase, type TestDatabase } from '../helpers/control-db.js';
import { jsonRequest } from '../helpers/requests.js';

const KEY = 'mg-ledger-hostile-key-0001';
let upstream: Server;
let gateway: Gateway;
let t: TestDatabase;
const rows: LedgerRow[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      const model = (JSON.parse(raw) as { model: string }).model;
      // gpt-4o: garbage counts; gpt-4o-mini: sane ones.
      const usage = model === 'gpt-4o' ? { prompt_tokens: 1e300, completion_tokens: 'NaN', total_tokens: -1 } : { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const port = (upstream.address() as AddressInfo).port;
  gateway = createGateway(
    {
      providers: [{ id: 'up', type: 'openai', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-up-ledger-hostile-000001' }],
      models: [
        { id: 'gpt', provider: 'up', upstreamModel: 'gpt-4o', pricing: { inputPerMTok: 1, outputPerMTok: 1 } },
        { id: 'gpt-cached', provider: 'up', upstreamModel: 'gpt-4o-mini', cache: { ttlSeconds: 60 } },
      ],
      keys: [{ id: 'k', key: KEY }],
    },
    { ledger: { enqueue: (r) => (rows.push(structuredClone(r)), true) } },
  );
  t = await openTestDatabase('sqlite', 'ledger_hostile');
});

afterAll(async () => {
  await gateway?.close();
  await t?.close();
  await new Promise((r) => upstream?.close(r));
});

const chat = (model: string) => gateway.handle(jsonRequest('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] }, { key: KEY }));
const rowOf = (res: Response): LedgerRow => rows.find((r) => r.traceId === res.headers.get('x-trace-id')) as LedgerRow;

describe('the ledger against hostile input', () => {
  it('a lone surrogate or an over-long model id is a 400; the rows store and read back', async () => {
    const lone = await chat('x\ud800');
    expect(lone.status).toBe(400);
    const body = (await lone.json()) as { error: { param: string; message: string } };
    expect(body.error.param).toBe('model');
    expect(body.error.message).toContain('surrogate');
    const long = await chat(`up/${'a'.repeat(300)}`);
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { message: string } }).error.message).toContain('longer than 256');
    const written = [rowOf(lone), rowOf(long)];
    expect(written[0]?.requestedModel).toBe('x\ufffd');
    const store = new SqlLedgerStore(t.db);
    await store.write(written);
    const back = await store.rows({ keyId: 'k' }, { limit: 10 });
    expect(back.rows.map((r) => r.requestedModel).sort()).toEqual(written.map((r) => r.requestedModel).sort());
  });

  it("an upstream's impossible token counts are left out of the row (and of its cost)", async () => {
    const res = await chat('gpt');
    expect(res.status).toBe(200);
    await res.text();
    expect(rowOf(res)).toMatchObject({ inputTokens: null, outputTokens: null, costUsd: null });
  });

  it('a response cache hit is recorded as one', async () => {
    const miss = await chat('gpt-cached');
    await miss.text();
    const hit = await chat('gpt-cached');
    await hit.text();
    expect(hit.headers.get('x-modelgate-cache')).toBe('hit');
    expect([rowOf(miss).cacheHit, rowOf(hit).cacheHit]).toEqual([false, true]);
  });
});
