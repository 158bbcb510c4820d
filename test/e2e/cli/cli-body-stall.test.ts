/**
 * A sync upstream answer whose body stalls after its headers is cut after `timeouts.streamIdleMs`
 * of silence (504, in the caller's shape), as a silent stream is, not only by the request's total
 * time: through `node dist/node/cli.js` and its upstream client, a loopback vendor that sends its
 * headers and half its JSON, then nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { stopChild } from '../../helpers/hosts.js';

const KEY = 'mg-body-stall-key-0001';
let upstream: Server;
let child: ChildProcess | undefined;
let url = '';

beforeAll(async () => {
  await ensureCliBuilt();
  upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
    res.write('{"id":"chatcmpl-1","object":"chat.completion",');
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-body-stall-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'stall', type: 'openai', baseURL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, apiKey: 'sk-stall-upstream-0001' }],
      models: [{ id: 'stall', provider: 'stall', upstreamModel: 'gpt-4o' }],
      keys: [{ id: 'k', key: KEY }],
      retry: { attempts: 1 },
      // The total time is far beyond the test's timeout: only the idle limit can end the call in time.
      timeouts: { streamIdleMs: 1000, totalMs: 600_000 },
    }),
  );
  const started = await spawnCli(['--config', config], {});
  child = started.child;
  url = started.url;
}, 120_000);

afterAll(async () => {
  if (child) await stopChild(child);
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

describe('a sync answer whose body stalls', () => {
  it('is a 504 after the idle limit, in the OpenAI shape', async () => {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stall', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { message: string; type: string } };
    expect(body.error.message).toContain('timed out while sending its answer');
    expect(JSON.stringify(body)).not.toContain('sk-stall-upstream-0001');
  }, 20_000);
});
