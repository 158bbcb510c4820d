/** GET /v1/models (per key, ?all=true) and GET /v1/models/{id}, through the openai client and raw fetch. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import { createGateway, type Gateway } from '../../../src/index.js';
import { KEY_ALL, KEY_GPT } from '../../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';

let mock: MockOpenAI;
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  mock = await startMockOpenAI();
  gateway = createGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey },
        { id: 'local', type: 'openai-compatible', baseURL: mock.baseURL },
      ],
      models: [
        { id: 'gpt-4o', provider: 'openai', created: 1715367049, ownedBy: 'openai' },
        { id: 'gpt-image-1', provider: 'openai' },
        { id: 'house/model:v2', provider: 'local', upstreamModel: 'qwen3-8b', inputModalities: ['text'] },
      ],
      keys: [
        { id: 'all', key: KEY_ALL },
        { id: 'gpt', key: KEY_GPT, models: ['gpt-*'] },
      ],
    },
    { now: () => 1_767_225_600_000 },
  );
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await mock?.close();
});

const sdk = (key: string) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: 0 });

async function getJson(path: string, key?: string): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${server.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

describe('GET /v1/models', () => {
  it('lists the models the calling key may use, in OpenAI list shape', async () => {
    const { status, body } = await getJson('/v1/models', KEY_GPT);
    expect(status).toBe(200);
    expect(body).toEqual({
      object: 'list',
      data: [
        { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'openai' },
        { id: 'gpt-image-1', object: 'model', created: 1767225600, owned_by: 'openai' },
      ],
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const ids: string[] = [];
    for await (const m of sdk(KEY_ALL).models.list()) ids.push(m.id);
    expect(ids).toEqual(['gpt-4o', 'gpt-image-1', 'house/model:v2']);
  });

  it('?all=true lists every model with allowed flag and capabilities', async () => {
    const { body } = await getJson('/v1/models?all=true', KEY_GPT);
    const data = body.data as Array<Record<string, unknown>>;
    expect(data.map((m) => [m.id, m.allowed, m.capabilities])).toEqual([
      ['gpt-4o', true, ['chat']],
      ['gpt-image-1', true, ['image']],
      ['house/model:v2', false, ['chat']],
    ]);
    expect(data[2]?.input_modalities).toEqual(['text']);
    expect(data[0]).toMatchObject({ object: 'model', owned_by: 'openai' });
  });

  it('needs a key', async () => {
    const { status, body, headers } = await getJson('/v1/models');
    expect(status).toBe(401);
    expect(body.traceId).toBe(headers.get('x-trace-id'));
  });

  it('never lists upstream credentials or upstream model names', async () => {
    const { body } = await getJson('/v1/models?all=true', KEY_ALL);
    const text = JSON.stringify(body);
    expect(text).not.toContain(mock.apiKey);
    expect(text).not.toContain('qwen3-8b');
  });
});

describe('GET /v1/models/{id}', () => {
  it('returns one model, also through the SDK', async () => {
    const m = await sdk(KEY_ALL).models.retrieve('gpt-4o');
    expect(m).toMatchObject({ id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'openai' });
    const { status, body } = await getJson(`/v1/models/${encodeURIComponent('house/model:v2')}`, KEY_ALL);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: 'house/model:v2', object: 'model', capabilities: ['chat'] });
    const unencoded = await getJson('/v1/models/house/model:v2', KEY_ALL);
    expect(unencoded.body.id).toBe('house/model:v2');
  });

  it('404 for unknown models and for models the key may not use', async () => {
    for (const id of ['nope', 'house/model:v2']) {
      const err = await sdk(KEY_GPT)
        .models.retrieve(id)
        .then(() => undefined, (e: unknown) => e);
      expect(err, id).toBeInstanceOf(OpenAI.NotFoundError);
    }
  });
});

describe('GET /v1/models in Anthropic shape', () => {
  it('the Anthropic SDK lists and retrieves the models its key may use', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ baseURL: server.url, apiKey: KEY_GPT, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of client.models.list()) {
      expect(m.type).toBe('model');
      expect(typeof m.created_at).toBe('string');
      ids.push(m.id);
    }
    expect(ids).toEqual(['gpt-4o', 'gpt-image-1']);
    const one = await client.models.retrieve('gpt-4o');
    expect(one).toMatchObject({ type: 'model', id: 'gpt-4o', display_name: 'gpt-4o', created_at: '2024-05-10T18:50:49.000Z' });
    await expect(client.models.retrieve('house/model:v2')).rejects.toMatchObject({ status: 404 });
  });

  it('pages with limit, after_id and before_id; the SDK walks every page', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ baseURL: server.url, apiKey: KEY_ALL, maxRetries: 0 });
    const first = await client.models.list({ limit: 2 });
    expect(first.data.map((m) => m.id)).toEqual(['gpt-4o', 'gpt-image-1']);
    expect(first).toMatchObject({ has_more: true, first_id: 'gpt-4o', last_id: 'gpt-image-1' });
    const walked: string[] = [];
    for await (const m of client.models.list({ limit: 1 })) walked.push(m.id);
    expect(walked).toEqual(['gpt-4o', 'gpt-image-1', 'house/model:v2']);
    const after = await client.models.list({ limit: 2, after_id: 'gpt-image-1' });
    expect(after.data.map((m) => m.id)).toEqual(['house/model:v2']);
    expect(after.has_more).toBe(false);
    const before = await client.models.list({ limit: 1, before_id: 'house/model:v2' });
    expect(before.data.map((m) => m.id)).toEqual(['gpt-image-1']);
    expect(before.has_more).toBe(true);
  });

  it('a bad limit or an unknown cursor is a 400 naming the parameter, in Anthropic shape', async () => {
    const headers = { 'x-api-key': KEY_ALL, 'anthropic-version': '2023-06-01' };
    for (const [query, param] of [['limit=0', 'limit'], ['limit=abc', 'limit'], ['limit=1001', 'limit'], ['after_id=nope', 'after_id'], ['after_id=gpt-4o&before_id=gpt-4o', 'before_id']] as const) {
      const res = await fetch(`${server.url}/v1/models?${query}`, { headers });
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { type: string; error: { type: string; message: string } };
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message, query).toContain(param);
    }
  });
});
