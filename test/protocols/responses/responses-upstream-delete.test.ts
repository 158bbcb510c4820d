/**
 * A response passed through to OpenAI's Responses API is stored there too (OpenAI keeps what it
 * answers unless told `store: false`): deleting it at the gateway deletes OpenAI's copy, the way
 * an interaction's delete reaches Gemini's. A failed upstream delete leaves the gateway's answer as
 * it is and is a warning. Through node:http with the shipped upstream client, the official openai
 * SDK and the strict Responses mock.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import { createUndiciFetch } from '../../../node/upstream-fetch.js';
import { createGateway, type Gateway } from '../../../src/index.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../../helpers/mock-openai-responses.js';

const KEY = 'mg-responses-delete-key-0001';

let mock: MockOpenAIResponses;
let gateway: Gateway;
let server: RunningServer;
let openai: OpenAI;
const warnings: string[] = [];

beforeAll(async () => {
  mock = await startMockOpenAIResponses();
  gateway = createGateway(
    {
      providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }],
      models: [{ id: 'gpt-5', provider: 'openai', upstreamModel: 'gpt-5', api: 'responses' }],
      keys: [{ id: 'all', key: KEY, models: ['*'] }],
      retry: { attempts: 1 },
    },
    { fetch: createUndiciFetch(), logger: { warn: (m) => warnings.push(m) } },
  );
  server = await serve(gateway, { port: 0 });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await mock?.close();
});

/** The id the mock stored the latest response under. */
const lastStoredId = (): string => [...mock.stored.keys()].at(-1) as string;

describe('DELETE /v1/responses/{id} of a pass-through response', () => {
  it("deletes OpenAI's stored copy as well", async () => {
    const created = await openai.responses.create({ model: 'gpt-5', input: 'remember me' });
    const upstreamId = lastStoredId();
    expect(mock.stored.has(upstreamId)).toBe(true);
    const deleted = await openai.responses.delete(created.id);
    expect(deleted).toMatchObject({ id: created.id, object: 'response', deleted: true });
    expect(mock.stored.has(upstreamId)).toBe(false);
    const del = mock.requests.filter((r) => r.method === 'DELETE');
    expect(del.at(-1)?.path).toBe(`/v1/responses/${upstreamId}`);
    await expect(openai.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('answers the delete when OpenAI no longer has it, with a warning naming the id (no key in it)', async () => {
    const created = await openai.responses.create({ model: 'gpt-5', input: 'gone upstream already' });
    const upstreamId = lastStoredId();
    (mock.stored as Map<string, unknown>).delete(upstreamId);
    warnings.length = 0;
    const res = await fetch(`${server.url}/v1/responses/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: created.id, object: 'response', deleted: true });
    expect(warnings.join('\n')).toContain(`the delete of the response '${upstreamId}' at provider 'openai' failed`);
    expect(warnings.join('\n')).not.toContain(mock.apiKey);
  });
});
