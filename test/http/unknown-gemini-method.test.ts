/**
 * A Gemini method the gateway does not serve (`:predict`, `:batchGenerateContent`, ...) is a 404
 * in Gemini's error shape saying what is served, not a 405 whose Allow header offers GET (the model
 * route's path). Through node:http.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import { createGateway, type Gateway } from '../../src/index.js';

const KEY = 'mg-unknown-gemini-method-01';
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  gateway = createGateway({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'veo-3.0-generate-001', provider: 'mock' }, { id: 'mock-chat', provider: 'mock' }], keys: [{ id: 'k', key: KEY }] });
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
});

describe('an unknown Gemini method on a model', () => {
  it('any other method: 404 in Gemini shape, on v1 and v1beta; GET on the path stays the model lookup', async () => {
    for (const path of ['/v1beta/models/mock-chat:predict', '/v1/models/mock-chat:batchGenerateContent']) {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' }, body: '{}' });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('allow')).toBeNull();
      const body = (await res.json()) as { error: { code: number; status: string; message: string } };
      expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(body.error.message).toContain(':generateContent');
    }
    const served = await fetch(`${server.url}/v1beta/models/mock-chat:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(served.status).toBe(200);
    expect((await fetch(`${server.url}/v1beta/models/mock-chat`, { headers: { 'x-goog-api-key': KEY } })).status).toBe(200);
  });
});
