/**
 * The response cache as the shipped server wires it (`node dist/node/cli.js` with REDIS_URL): two
 * instances sharing one Redis keep answers there, so an answer made on one is a hit on the other
 * (`x-modelgate-cache: hit`, no second upstream call), streamed or not, chat and embeddings, and
 * only for the same platform key. Runs when REDIS_URL is set, and then fails if Redis cannot be
 * reached (the server refuses to start).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

const REDIS_URL = process.env.REDIS_URL;
const KEY_A = 'mg-cli-cache-key-a-00001';
const KEY_B = 'mg-cli-cache-key-b-00002';

if (!REDIS_URL) console.warn('[response-cache-cli-redis.test] REDIS_URL is not set: skipping the shipped server\'s Redis response cache test (set REDIS_URL=redis://127.0.0.1:6379 to run it).');

describe.skipIf(!REDIS_URL)('the shipped server keeps cached answers in Redis (two instances)', () => {
  const prefix = `mg-cli-cache:${process.pid}:${Date.now()}:`;
  let mock: MockOpenAI;
  let configFile: string;
  const servers: Array<Awaited<ReturnType<typeof spawnCli>>> = [];

  beforeAll(async () => {
    await ensureCliBuilt();
    mock = await startMockOpenAI();
    configFile = join(mkdtempSync(join(tmpdir(), 'mg-cli-cache-')), 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }],
        models: [
          { id: 'gpt-4o', provider: 'openai', cache: { ttlSeconds: 300 } },
          { id: 'text-embedding-3-small', provider: 'openai', cache: { ttlSeconds: 300 } },
        ],
        keys: [
          { id: 'team-a', key: KEY_A },
          { id: 'team-b', key: KEY_B },
        ],
      }),
    );
    const env = { REDIS_URL: REDIS_URL as string, MODELGATE_REDIS_PREFIX: prefix };
    for (let i = 0; i < 2; i++) servers.push(await spawnCli(['--config', configFile, '--quiet'], env));
  }, 360_000);

  afterAll(async () => {
    for (const s of servers) await stopChild(s.child);
    await mock?.close();
    const redis = new Redis(REDIS_URL as string, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  const client = (i: number, key = KEY_A) => new OpenAI({ apiKey: key, baseURL: `${servers[i]?.url}/v1`, maxRetries: 0 });
  const posts = (path: string) => mock.requests.filter((r) => r.method === 'POST' && r.path === path).length;

  it('an answer made on one instance is a hit on the other (and on itself), sync and streamed; never for another key', async () => {
    const q = `cached across instances ${Math.random().toString(36).slice(2)}`;
    const ask = async (i: number, key = KEY_A) => {
      const { data, response } = await client(i, key).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }] }).withResponse();
      return { cache: response.headers.get('x-modelgate-cache'), text: data.choices[0]?.message.content };
    };
    const before = posts('/v1/chat/completions');
    const first = await ask(0);
    expect(first.cache).toBe('miss');
    const onOther = await ask(1);
    expect(onOther).toEqual({ cache: 'hit', text: first.text });
    expect(await ask(0)).toEqual({ cache: 'hit', text: first.text });
    expect(posts('/v1/chat/completions')).toBe(before + 1);
    // Kept in Redis under the server's prefix.
    const redis = new Redis(REDIS_URL as string, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      expect((await redis.keys(`${prefix}cache:*`)).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }

    const { data: stream, response } = await client(1).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }], stream: true }).withResponse();
    expect(response.headers.get('x-modelgate-cache')).toBe('hit');
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(first.text);
    expect(posts('/v1/chat/completions')).toBe(before + 1);

    // Scoped to the key: another key's identical request is its own miss.
    expect((await ask(1, KEY_B)).cache).toBe('miss');
    expect(posts('/v1/chat/completions')).toBe(before + 2);
  });

  it('embeddings made on one instance are a hit on the other', async () => {
    const input = [`chunk ${Math.random().toString(36).slice(2)}`];
    const before = posts('/v1/embeddings');
    const one = await client(1).embeddings.create({ model: 'text-embedding-3-small', input }).withResponse();
    const two = await client(0).embeddings.create({ model: 'text-embedding-3-small', input }).withResponse();
    expect([one.response.headers.get('x-modelgate-cache'), two.response.headers.get('x-modelgate-cache')]).toEqual(['miss', 'hit']);
    expect(two.data.data).toEqual(one.data.data);
    expect(posts('/v1/embeddings')).toBe(before + 1);
  });
});
