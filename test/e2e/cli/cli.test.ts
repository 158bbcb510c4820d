/**
 * The standalone server (`npm start -- --port N`, i.e. `node dist/node/cli.js`): embedded default
 * with no config, a chat request, clean SIGTERM shutdown that lets an in-flight stream finish.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { ROOT, stopChild } from '../../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';

const PLATFORM_KEY = 'mg-cli-test-key-0001';

const children: ChildProcess[] = [];
/** Process groups started with `detached` (npm + its server). */
const groups: number[] = [];
let mock: MockOpenAI;

beforeAll(async () => {
  // `npm ci` builds dist (prepare script); rebuild when it is missing or older than the sources.
  await ensureCliBuilt();
  expect(existsSync(CLI)).toBe(true);
}, 120_000);

beforeAll(async () => {
  mock = await startMockOpenAI();
});
afterAll(async () => {
  for (const c of children) await stopChild(c);
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await mock?.close();
});

async function startCli(args: string[], env: Record<string, string>) {
  const started = await spawnCli(args, env);
  children.push(started.child);
  return started;
}

describe('standalone server', () => {
  it('starts on the embedded default with no config and answers a chat request', async () => {
    const { url, output, child } = await startCli([], { MODELGATE_API_KEY: PLATFORM_KEY });
    expect(output()).toContain('embedded default');
    expect(output()).not.toContain(PLATFORM_KEY);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: PLATFORM_KEY, maxRetries: 0 });
    const res = await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hello cli' }] });
    expect(res.choices[0]?.message.content).toContain('hello cli');
    const models: string[] = [];
    for await (const m of client.models.list()) models.push(m.id);
    expect(models).toContain('mock-chat');
    const bad = await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer wrong-key-123456' } });
    expect(bad.status).toBe(401);

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(output()).toContain('stopped');
  });

  it('prints a generated platform key when MODELGATE_API_KEY is not set, and that key works', async () => {
    const { url, output } = await startCli([], {});
    const key = /platform key[^:]*: (\S+)/.exec(output())?.[1];
    expect(key).toBeTruthy();
    const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('npm start -- --port N works', async () => {
    // npm runs the server in a child of its own: give them a process group to signal together.
    const child = spawn('npm', ['start', '--silent', '--', '--port', '0'], { cwd: ROOT, env: cleanEnv({ MODELGATE_API_KEY: PLATFORM_KEY }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    groups.push(child.pid as number);
    const exited = once(child, 'exit');
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http\S+)/.exec(out);
        if (m) resolve(m[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${out}`)));
    });
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'via npm' }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
    // The whole process group (npm and the server it started) is gone. (Probing the port instead
    // is flaky: another suite running in parallel may already have been given the same port.)
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(-(child.pid as number), 0);
        await new Promise((r) => setTimeout(r, 50));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });

  it('on SIGTERM stops accepting connections but lets an in-flight stream finish, then exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-cli-'));
    const configPath = join(dir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        providers: [{ id: 'up', type: 'openai', baseURL: mock.baseURL, apiKey: '${UPSTREAM_KEY}' }],
        models: [{ id: 'gpt-4o', provider: 'up' }],
        keys: [{ id: 'k', key: PLATFORM_KEY }],
      }),
    );
    const { url, child, output } = await startCli(['--config', configPath], { UPSTREAM_KEY: mock.apiKey, MODELGATE_SHUTDOWN_MS: '30000' });
    expect(output()).toContain(configPath);
    expect(output()).not.toContain(mock.apiKey);

    const pause = mock.pauseStreamNext();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'finish me please' }] }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('[openai]')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
    }

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await expect.poll(() => output()).toContain('SIGTERM received');
    // New connections are refused while the stream is still running.
    await expect(fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${PLATFORM_KEY}`, connection: 'close' } })).rejects.toThrow();

    pause.release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const content = text
      .split('\n\n')
      .filter((b) => b.startsWith('data: {'))
      .map((b) => (JSON.parse(b.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
      .join('');
    expect(content).toBe('[openai] you said: finish me please');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });
});

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('[cli.test] REDIS_URL is not set: skipping the two-instance standalone test (set REDIS_URL=redis://127.0.0.1:6379 to run it).');

describe.skipIf(!REDIS_URL)('two standalone instances sharing Redis (REDIS_URL)', () => {
  it('a video task submitted on one instance is read, advanced and downloaded from the other', async () => {
    const env = { MODELGATE_API_KEY: PLATFORM_KEY, REDIS_URL: REDIS_URL ?? '', MODELGATE_REDIS_PREFIX: `modelgate:clitest:${process.pid}:${Date.now()}:` };
    const a = await startCli([], env);
    const b = await startCli([], env);
    expect(a.output()).toContain('shared through Redis');
    const headers = { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json', 'request-id': `req-${Date.now()}` };
    const submit = await fetch(`${a.url}/v1/video/generations`, { method: 'POST', headers, body: JSON.stringify({ model: 'mock-video', prompt: 'a red ball' }) });
    expect(submit.status).toBe(202);
    const { task_id: taskId } = (await submit.json()) as { task_id: string };
    // The same Request-Id on the other instance returns the same task.
    const again = await fetch(`${b.url}/v1/video/generations`, { method: 'POST', headers, body: JSON.stringify({ model: 'mock-video', prompt: 'a red ball' }) });
    expect(((await again.json()) as { task_id: string }).task_id).toBe(taskId);
    let status = '';
    for (let i = 0; i < 100 && status !== 'succeeded'; i++) {
      const r = await fetch(`${b.url}/v1/video/generations/${taskId}`, { headers });
      expect(r.status).toBe(200);
      status = ((await r.json()) as { status: string }).status;
      if (status !== 'succeeded') await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe('succeeded');
    const content = await fetch(`${b.url}/v1/video/generations/${taskId}/content`, { headers });
    expect(content.status).toBe(200);
    expect((await content.arrayBuffer()).byteLength).toBeGreaterThan(8);
  }, 60_000);
});
