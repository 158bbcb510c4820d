/**
 * The console end to end in a real browser: the shipped CLI server (a SQLite file, strict mock
 * OpenAI vendors upstream) and Debian's Chromium driven by playwright-core. An operator signs in,
 * creates a key (keyboard only) and copies its secret; the key calls a model through the official
 * openai SDK; the call shows in Requests and Usage (and the CSV export); the key is rotated (the old
 * secret works during the grace period, then 401) and revoked (401); a video generated through the
 * gateway plays inline and downloads from the task center; sign-out ends the session. A read-only
 * admin sees no write controls and the API refuses its writes. Every page passes axe-core with no
 * serious or critical violation, fits a phone's width, raises no CSP violation, and is saved as a
 * screenshot under test-results/console/.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../helpers/mock-media-openai.js';
import { launchChromium, recordWebm, screenshot, seriousViolations } from '../helpers/console-browser.js';

const ADMIN = 'mg-console-e2e-admin-key-00001';
const VIEWER = 'mg-console-e2e-viewer-key-0001';
const VIDEO_KEY = 'mg-console-e2e-video-key-00001';
const PAGES = ['Overview', 'Keys', 'Usage', 'Requests', 'Task center', 'Models', 'Audit'] as const;
const LAPTOP = { width: 1366, height: 850 };
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let chat: MockOpenAI;
let media: MockMediaOpenAI;
let webm: Buffer;
let server: Awaited<ReturnType<typeof spawnCli>>;
let base: string;

beforeAll(async () => {
  await ensureCliBuilt();
  browser = await launchChromium();
  webm = await recordWebm(browser);
  [chat, media] = await Promise.all([startMockOpenAI(), startMockMediaOpenAI({ video: { contentType: 'video/webm', bytes: webm } })]);
  const dir = mkdtempSync(join(tmpdir(), 'mg-console-e2e-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      providers: [
        { id: 'chat', type: 'openai', baseURL: chat.baseURL, apiKey: '${CHAT_KEY}' },
        { id: 'media', type: 'openai', baseURL: media.baseURL, apiKey: '${MEDIA_KEY}' },
      ],
      models: [
        { id: 'gpt-4o', provider: 'chat', pricing: { inputPerMTok: 2.5, outputPerMTok: 10 } },
        { id: 'sora-2', provider: 'media', pricing: { perVideoSecond: 0.1 } },
      ],
      keys: [{ id: 'video-team', key: VIDEO_KEY }],
      admin: { keys: [{ id: 'ops', key: ADMIN, access: 'write' }, { id: 'viewer', key: VIEWER, access: 'read' }] },
    }),
  );
  server = await spawnCli(['--config', configFile, '--db', join(dir, 'store.db'), '--quiet'], { CHAT_KEY: chat.apiKey, MEDIA_KEY: media.apiKey, MODELGATE_LEDGER_FLUSH_MS: '50' });
  base = server.url;
}, 360_000);

afterAll(async () => {
  if (server) await stopChild(server.child);
  await browser?.close();
  await Promise.all([chat?.close(), media?.close()]);
});

/** A fresh browser context (its own cookies) with a CSP and page-error watch. */
async function openConsole(viewport = LAPTOP): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/console`);
  expect(new URL(page.url()).pathname).toBe('/console/');
  return { context, page, problems };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('Admin key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

async function goTo(page: Page, name: (typeof PAGES)[number]): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await page.getByText('Loading…').first().waitFor({ state: 'detached' });
}

async function adminApi(path: string, key = ADMIN): Promise<{ data: Array<Record<string, unknown>> }> {
  const res = await fetch(`${base}/admin/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: Array<Record<string, unknown>> };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, tries = 150): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`never happened: ${what}`);
}

const chatWith = (apiKey: string) => new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello console' }] });
const statusOf = (p: Promise<unknown>) => p.then(() => 200, (e: unknown) => (e instanceof OpenAI.APIError ? e.status : -1));

describe('the console in Chromium against the shipped server', () => {
  it('sign in, create a key, see its call in Requests and Usage, rotate, revoke, play and download a video, sign out', async () => {
    const { context, page, problems } = await openConsole();
    await signIn(page, ADMIN);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'modelgate_session', httpOnly: true, sameSite: 'Strict', path: '/admin/v1' });
    expect(page.url()).not.toContain(ADMIN);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).toBe('{}{}');

    // Keyboard only: a new page focuses its content; back through Sign out and the nav to the skip
    // link; then to Keys, the New key dialog (its first field takes the focus), Enter submits.
    const focused = () => page.evaluate(() => (document.activeElement?.id === 'main' ? '#main' : document.activeElement?.textContent));
    expect(await focused()).toBe('#main');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Sign out');
    for (let i = 0; i < 8; i++) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Keys');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
    await page.getByRole('button', { name: 'New key' }).focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('dialog', { name: 'New key' });
    await form.waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent)).toBe('Name');
    await page.keyboard.type('e2e-team');
    await form.getByLabel('Owner').fill('alice@example.com');
    await form.getByLabel('Models').fill('gpt-4o*');
    await form.getByLabel('Requests per minute').fill('100');
    await form.getByLabel('Budget (USD)').fill('25');
    await form.getByLabel('Metadata').fill('team=e2e');
    // Enter in a one-line field submits (in Metadata, one pair per line, it starts a new line).
    await form.getByLabel('Owner').press('Enter');
    const secret = (await page.getByLabel('New key secret').textContent()) ?? '';
    expect(secret).toMatch(/^mg-[A-Za-z0-9]{43}$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Open key e2e-team' }).waitFor();
    const keyId = (await adminApi('/keys?search=e2e-team')).data[0]?.id as string;
    expect(keyId).toMatch(/^key_/);

    // The key at work through the official SDK; the call in Requests (with its trace id) and Usage.
    const { response } = await chatWith(secret).withResponse();
    const traceId = response.headers.get('x-trace-id') as string;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    await until('the ledger row', async () => ((await adminApi(`/requests?keyId=${keyId}`)).data.length ? true : undefined));
    await goTo(page, 'Requests');
    const callRow = page.getByRole('row').filter({ hasText: traceId });
    await callRow.waitFor();
    expect(await callRow.textContent()).toMatch(/200.*gpt-4o.*chat/);
    // The key by its name, its id beside it.
    expect(await callRow.locator('td').nth(2).textContent()).toBe(`e2e-team ${keyId}`);
    await screenshot(page, 'requests');
    await goTo(page, 'Usage');
    await page.getByLabel('Group by').selectOption('key');
    await page.getByLabel('Key id').fill(keyId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const usageRow = page.getByRole('row').filter({ hasText: keyId });
    await usageRow.waitFor();
    expect(await usageRow.locator('td').nth(1).textContent()).toBe('1');
    expect(await usageRow.locator('td').nth(0).textContent()).toBe(`e2e-team ${keyId}`);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export rows as CSV' }).click()]);
    expect(readFileSync(await csv.path(), 'utf8')).toContain(traceId);
    await screenshot(page, 'usage');

    // Rotate with a grace period of 2 s: the old secret works, then gets a 401.
    await goTo(page, 'Keys');
    await page.getByRole('button', { name: 'Open key e2e-team' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByLabel('Grace period (seconds)').fill('2');
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    const rotated = (await page.getByLabel('New key secret').textContent()) ?? '';
    expect(rotated).toMatch(/^mg-/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await statusOf(chatWith(secret))).toBe(200);
    expect(await statusOf(chatWith(rotated))).toBe(200);
    await until('the old secret refused', async () => ((await statusOf(chatWith(secret))) === 401 ? true : undefined));
    await page.getByRole('heading', { level: 2, name: 'Usage of this key' }).waitFor();
    await screenshot(page, 'key-detail');

    // Revoke, confirmed in a dialog: the current secret gets a 401.
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await page.locator('.badge', { hasText: 'revoked' }).first().waitFor();
    expect(await statusOf(chatWith(rotated))).toBe(401);

    // A video through the gateway: live in the task center, then played inline and downloaded.
    const submitted = await fetch(`${base}/v1/video/generations`, { method: 'POST', headers: { authorization: `Bearer ${VIDEO_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'a paper boat on a river' }) });
    expect(submitted.status).toBe(202);
    const taskId = ((await submitted.json()) as { task_id: string }).task_id;
    await goTo(page, 'Task center');
    const task = page.getByRole('listitem').filter({ hasText: taskId });
    await task.waitFor();
    await task.getByRole('button', { name: 'Play' }).waitFor({ timeout: 60_000 });
    expect(await task.locator('.badge').textContent()).toBe('succeeded');
    await task.getByRole('button', { name: 'Play' }).click();
    const video = task.locator('video');
    await video.waitFor();
    await page.waitForFunction((id) => (document.querySelector(`video[aria-label="Video of ${id}"]`) as HTMLVideoElement | null)?.readyState === 4 || ((document.querySelector(`video[aria-label="Video of ${id}"]`) as HTMLVideoElement | null)?.readyState ?? 0) >= 2, taskId);
    const played = await video.evaluate(async (v: HTMLVideoElement) => {
      v.muted = true;
      await v.play();
      await new Promise((r) => setTimeout(r, 400));
      return { time: v.currentTime, width: v.videoWidth, error: v.error?.code ?? null };
    });
    expect(played).toMatchObject({ width: 160, error: null });
    expect(played.time).toBeGreaterThan(0);
    const [download] = await Promise.all([page.waitForEvent('download'), task.getByRole('link', { name: 'Download video' }).click()]);
    expect(readFileSync(await download.path()).equals(webm)).toBe(true);
    await screenshot(page, 'tasks');

    // Every page: axe-core, screenshots at laptop and phone widths, no horizontal scrolling on a phone.
    for (const name of PAGES) {
      await goTo(page, name);
      expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
      await screenshot(page, `${name.toLowerCase().replace(' ', '-')}-laptop`);
    }
    await page.setViewportSize(PHONE);
    for (const name of PAGES) {
      await goTo(page, name);
      expect({ page: name, overflow: await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth) }).toEqual({ page: name, overflow: 0 });
      await screenshot(page, `${name.toLowerCase().replace(' ', '-')}-phone`);
    }
    await page.setViewportSize(LAPTOP);

    // Sign out: the form is back and the same cookie no longer opens the admin API.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin key').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');
    const after = await fetch(`${base}/admin/v1/keys`, { headers: { cookie: `${cookie?.name}=${cookie?.value}` } });
    expect(after.status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);

  it('a read-only admin sees no write controls, and the API refuses its writes', async () => {
    const { context, page, problems } = await openConsole();
    await signIn(page, VIEWER);
    await page.getByText('viewer (read-only)').waitFor();
    await goTo(page, 'Keys');
    expect(await page.getByRole('button', { name: 'New key' }).count()).toBe(0);
    await page.getByRole('button', { name: /^Open key / }).first().click();
    await page.getByRole('heading', { level: 2, name: 'Usage of this key' }).waitFor();
    for (const control of ['Edit', 'Rotate secret', 'Disable', 'Enable', 'Revoke']) expect(await page.getByRole('button', { name: control, exact: true }).count()).toBe(0);
    await goTo(page, 'Task center');
    expect(await page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    await screenshot(page, 'read-only-tasks');
    // The page's own session (cookie + its CSRF token) still cannot write.
    const refused = await page.evaluate(async () => {
      const session = (await (await fetch('../admin/v1/session')).json()) as { csrfToken: string };
      const res = await fetch('../admin/v1/keys', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken }, body: JSON.stringify({ name: 'sneaky' }) });
      return { status: res.status, body: await res.text() };
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('read-only');
    expect((await adminApi('/keys?search=sneaky')).data).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
