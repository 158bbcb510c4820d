/**
 * The console's key editor keeps what it does not change, in Chromium against the shipped server:
 * a key made through the admin API with metadata values holding commas and '=', a concurrency
 * limit, tokens per minute and a budget in cents is renamed in the Edit dialog; everything else
 * stays exactly as it was (before, the form split the metadata at commas, dropped the concurrency
 * limit it had no field for, and refused the cents). A budget in cents can be entered. At a phone's
 * width, pages whose tables scroll sideways pass axe-core (their scrolling regions take the focus).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall } from '../helpers/admin-api.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { launchChromium, seriousViolations } from '../helpers/console-browser.js';

const ADMIN = 'mg-console-edit-admin-key-0001';
let browser: Browser;
let chat: MockOpenAI;
let server: Awaited<ReturnType<typeof spawnCli>>;

beforeAll(async () => {
  await ensureCliBuilt();
  browser = await launchChromium();
  chat = await startMockOpenAI();
  const dir = mkdtempSync(join(tmpdir(), 'mg-console-edit-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ providers: [{ id: 'chat', type: 'openai', baseURL: chat.baseURL, apiKey: chat.apiKey }], models: [{ id: 'gpt-4o-mini-2024-07-18-long-deployment-name', provider: 'chat', upstreamModel: 'gpt-4o-mini', pricing: { inputPerMTok: 2.5, outputPerMTok: 10 } }] }));
  server = await spawnCli(['--config', configFile, '--db', join(dir, 'store.db'), '--quiet'], { MODELGATE_ADMIN_KEY: ADMIN, MODELGATE_LEDGER_FLUSH_MS: '50' });
}, 360_000);

afterAll(async () => {
  if (server) await stopChild(server.child);
  await browser?.close();
  await chat?.close();
});

async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${server.url}/console`);
  await page.getByLabel('Admin key').fill(ADMIN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

async function goTo(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await page.getByText('Loading…').first().waitFor({ state: 'detached' });
}

describe('the key editor and narrow pages', () => {
  it('renaming a key in the Edit dialog changes only its name; a budget in cents is taken', async () => {
    const limits = { requestsPerMinute: 10, tokensPerMinute: 100000, concurrentRequests: 3, budget: { usd: 12.75, period: 'week' } };
    const metadata = { desc: 'billing, ops=team', 'cost center': '42' };
    const created = await adminCall(server.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'meta-comma', owner: 'ops@example.com', models: ['gpt-4o*'], limits, metadata } });
    expect(created.status).toBe(201);
    const page = await signedIn({ width: 1280, height: 850 });
    await goTo(page, 'Keys');
    await page.getByRole('button', { name: 'Open key meta-comma' }).click();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('dialog', { name: 'Edit meta-comma' });
    await form.getByLabel('Name').fill('meta-comma-renamed');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    const after = await adminCall(server.url, `/keys/${created.json.id}`, { key: ADMIN });
    expect(after.json).toMatchObject({ name: 'meta-comma-renamed', owner: 'ops@example.com', models: ['gpt-4o*'], limits, metadata });

    // The open key is in the address; the Keys link leaves it for the list.
    expect(new URL(page.url()).hash).toBe(`#/keys/${created.json.id}`);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Keys', exact: true }).click();
    // Cents, through the New key form.
    await page.getByRole('button', { name: 'New key' }).click();
    const create = page.getByRole('dialog', { name: 'New key' });
    await create.getByLabel('Name').fill('cents');
    await create.getByLabel('Budget (USD)').fill('25.5');
    await create.getByLabel('Concurrent requests').fill('2');
    await create.getByLabel('Metadata').fill('note=a, b\nteam=x');
    await create.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    const cents = (await adminCall(server.url, '/keys?search=cents', { key: ADMIN })).json.data[0];
    expect(cents).toMatchObject({ limits: { concurrentRequests: 2, budget: { usd: 25.5, period: 'month' } }, metadata: { note: 'a, b', team: 'x' } });
    await page.context().close();
  }, 120_000);

  it('at a phone width, tables that scroll sideways can be reached by keyboard (axe: no serious violation)', async () => {
    const key = await adminCall(server.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'phone-traffic-key-with-a-long-name' } });
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key.json.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini-2024-07-18-long-deployment-name', messages: [{ role: 'user', content: 'hi' }] }) });
      expect(r.status).toBe(200);
    }
    for (let i = 0; i < 100; i++) {
      if ((await adminCall(server.url, `/requests?keyId=${key.json.id}`, { key: ADMIN })).json.data.length === 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const page = await signedIn({ width: 375, height: 800 });
    for (const name of ['Overview', 'Keys', 'Usage', 'Requests', 'Models', 'Audit']) {
      await goTo(page, name);
      if (name === 'Requests') await page.getByRole('row').nth(1).waitFor();
      expect({ name, violations: await seriousViolations(page) }).toEqual({ name, violations: [] });
    }
    await page.context().close();
  }, 120_000);
});
