/**
 * Names a caller chooses reach the ledger (the model asked for, the path, the Request-Id). A model
 * name of 10 KB of random text or one holding NUL used to fail the whole batch on PostgreSQL (an
 * index entry over 8 KB; text without NUL), every retry, until the queue dropped every later row.
 * Through the gateway with the control plane on a real SQLite file and PostgreSQL: such requests
 * get their 400 naming the field, their rows are stored cut to LEDGER_TEXT_MAX with NUL
 * replaced, and the ordinary rows of the same batch are all there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../src/control/control-plane.js';
import { LEDGER_TEXT_MAX, ledgerText } from '../../src/control/ledger/ledger-row.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { jsonRequest } from '../helpers/requests.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';

const quiet = { warn: () => undefined };
/** Random text that does not compress (PostgreSQL compresses a long index entry before it measures it). */
const noise = (chars: number): string => Array.from({ length: Math.ceil(chars / 8) }, () => Math.random().toString(36).slice(2, 10).padEnd(8, 'z')).join('').slice(0, chars);

describe('ledgerText', () => {
  it('keeps short text as it is; cuts long text with an ellipsis, never inside a surrogate pair; replaces NUL', () => {
    expect(ledgerText('gpt-4o')).toBe('gpt-4o');
    expect(ledgerText(null)).toBeNull();
    expect(ledgerText(undefined)).toBeNull();
    const long = ledgerText('m'.repeat(5000));
    expect(long).toBe(`${'m'.repeat(LEDGER_TEXT_MAX - 1)}\u2026`);
    expect(long.length).toBe(LEDGER_TEXT_MAX);
    // The pair would be cut after its first half: it goes whole.
    expect(ledgerText(`${'a'.repeat(LEDGER_TEXT_MAX - 2)}\u{1F600}${'b'.repeat(50)}`)).toBe(`${'a'.repeat(LEDGER_TEXT_MAX - 2)}\u2026`);
    expect(ledgerText(`${'a'.repeat(LEDGER_TEXT_MAX - 3)}\u{1F600}${'b'.repeat(50)}`)).toBe(`${'a'.repeat(LEDGER_TEXT_MAX - 3)}\u{1F600}\u2026`);
    expect(ledgerText('a\u0000b')).toBe('a\uFFFDb');
  });
});

describe.each(testDatabaseKinds())('hostile names in the ledger on %s', (kind) => {
  let t: TestDatabase;
  let control: ControlPlane;
  let gateway: Gateway;
  let key: string;
  let keyId: string;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'ledger_hostile');
    control = await createControlPlane({ db: t.db, dialect: t.dialect, background: false, logger: quiet, ledger: { flushIntervalMs: 60_000 } });
    const created = await control.keys.create({ name: 'hostile' }, 'test', { configKeys: [] });
    key = created.body.key as string;
    keyId = created.body.id;
    gateway = createGateway({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-chat', provider: 'mock' }] }, { control });
  });
  afterAll(async () => {
    await gateway?.close();
    await control?.close();
    await t?.close();
  });

  const chat = (model: string, headers: Record<string, string> = {}) =>
    gateway.handle(jsonRequest('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] }, { key, headers }));

  it('answers 400 for the over-long and NUL names and stores every row of the batch, the names cut and cleaned', async () => {
    const huge = noise(10_000);
    const withNul = 'bad\u0000model';
    expect((await chat('mock-chat')).status).toBe(200);
    const refused = await chat(huge, { 'request-id': noise(4000) });
    // Over 256 characters: no model id (400 naming the field); its row is still written.
    expect(refused.status, await refused.clone().text()).toBe(400);
    // NUL in a model name is refused (400 naming the field); its row is still written.
    const nul = await chat(withNul);
    expect(nul.status).toBe(400);
    expect(((await nul.json()) as { error: { param?: string } }).error.param).toBe('model');
    expect((await chat('mock-chat')).status).toBe(200);
    const unknownPath = await gateway.handle(new Request(`http://gw/v1/${noise(6000)}`, { headers: { authorization: `Bearer ${key}` } }));
    expect(unknownPath.status).toBe(404);
    await control.ledger.flush();
    expect(control.ledger.stats()).toMatchObject({ queued: 0, dropped: 0, failures: 0 });

    const { rows } = await control.usage.rows({ keyId }, { limit: 100 });
    // The unknown path matched no route (no row: nothing was called); the four model requests have theirs.
    expect(rows).toHaveLength(4);
    const byTrace = new Map(rows.map((r) => [r.traceId, r]));
    const big = byTrace.get(refused.headers.get('x-trace-id') as string);
    expect(big?.model).toBe(`${huge.slice(0, LEDGER_TEXT_MAX - 1)}\u2026`);
    expect(big?.requestedModel).toBe(big?.model);
    // A Request-Id longer than any id scheme is not recorded (nor echoed).
    expect(big?.requestId).toBe(null);
    expect(rows.filter((r) => r.model === 'bad\uFFFDmodel')).toHaveLength(1);
    expect(rows.filter((r) => r.model === 'mock-chat' && r.status === 200)).toHaveLength(2);
    expect(Math.max(...rows.map((r) => r.route.length))).toBeLessThanOrEqual(LEDGER_TEXT_MAX);
    // The rollups took them too.
    const perModel = await control.usage.usage({ groupBy: 'model', keyId });
    expect(perModel.reduce((n, b) => n + b.requests, 0)).toBe(4);
  });
});
