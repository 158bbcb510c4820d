/** A tiny client of the admin API (/admin/v1) and the CLI's operator commands, for the control-plane suites. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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
