/** A tiny client of the admin API (/admin/v1) and the CLI's operator commands, for the control-plane suites. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { CLI, cleanEnv } from './cli-process.js';

export interface AdminAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function adminCall(base: string, path: string, init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<AdminAnswer> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}/admin/v1${path}`, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** `node dist/node/cli.js keys ...args` to completion. */
export async function runKeysCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, 'keys', ...args], { env: cleanEnv(env), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Polls `check` until it returns true or `ms` pass; returns how long it took. */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A store key created through the admin API (201 asserted); its secret is added to `secrets` (checked later not to appear where it should not). */
export async function createStoreKey(base: string, adminKey: string, body: Record<string, unknown>, secrets: string[]): Promise<{ id: string; key: string; [k: string]: unknown }> {
  const res = await adminCall(base, '/keys', { method: 'POST', key: adminKey, body });
  expect(res.status, res.text).toBe(201);
  secrets.push(res.json.key);
  return res.json;
}

/** A chat completion with `key` on `model`: its status and body text. */
export async function chatStatusOf(base: string, key: string, model = 'mock-chat'): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: await res.text() };
}
