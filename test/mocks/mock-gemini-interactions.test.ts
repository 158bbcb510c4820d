/**
 * The mock Gemini Interactions endpoint itself (raw HTTP, no gateway): it validates like Google
 * (auth, unknown fields, model/agent, contents and steps, signatures it did not issue, unpaired
 * function results, agents only in the background), keeps state for previous_interaction_id, and
 * streams the documented event sequence ending with [DONE]. The pass-through tests rely on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockThoughtSignature } from '../helpers/mock-gemini-interactions-validate.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';

type Json = Record<string, unknown>;

let gemini: MockGemini;

beforeAll(async () => {
  gemini = await startMockGemini();
});
afterAll(async () => {
  await gemini?.close();
});

async function call(method: string, path: string, body?: unknown, key: string | null = gemini.apiKey): Promise<{ status: number; json: Json; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers['x-goog-api-key'] = key;
  const res = await fetch(`${gemini.origin}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  let json: Json = {};
  try {
    json = JSON.parse(text) as Json;
  } catch {
    // an event stream
  }
  return { status: res.status, json, text };
}

const create = (body: unknown, key?: string | null) => call('POST', '/v1beta/interactions', body, key);

describe('mock Gemini Interactions API', () => {
  it('authenticates like Google', async () => {
    expect((await create({ model: 'gemini-2.5-flash', input: 'x' }, null)).status).toBe(403);
    const wrong = await create({ model: 'gemini-2.5-flash', input: 'x' }, 'not-the-key');
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.json)).toContain('API_KEY_INVALID');
  });

  it.each([
    [{ model: 'gemini-2.5-flash', input: 'x', temprature: 1 }, 'Unknown name "temprature"'],
    [{ input: 'x' }, 'Exactly one of model or agent'],
    [{ model: 'gemini-2.5-flash', agent: 'deep-research-pro-preview-12-2025', input: 'x' }, 'Exactly one of model or agent'],
    [{ agent: 'deep-research-pro-preview-12-2025', input: 'x' }, 'background=true'],
    [{ model: 'gemini-2.5-flash', input: [{ type: 'thought', signature: 'EqMockxyz' }] }, 'Thought signature is not valid'],
    [{ model: 'gemini-2.5-flash', input: [{ type: 'thought', signature: 'mg1.eyJ9' }] }, 'Thought signature is not valid'],
    [{ model: 'gemini-2.5-flash', input: [{ type: 'function_result', call_id: 'c1', result: 'x' }] }, 'does not match any function_call'],
    [{ model: 'gemini-2.5-flash', input: [{ type: 'text', text: 'a' }, { type: 'user_input', content: [] }] }, 'cannot be mixed'],
    [{ model: 'gemini-2.5-flash', input: [{ type: 'image', data: 'AAAA' }] }, 'mime_type is required'],
    [{ model: 'gemini-2.5-flash', input: 'x', tools: [{ type: 'web_search' }] }, 'unknown tool type'],
    [{ model: 'gemini-2.5-flash', input: 'x', generation_config: { thinking_level: 'max' } }, 'thinking_level'],
    [{ model: 'gemini-2.5-flash', input: 'x', generation_config: { maxOutputTokens: 3 } }, 'Unknown name "maxOutputTokens"'],
    [{ model: 'gemini-2.5-flash', input: 'x', background: true, store: false }, 'background=true requires store=true'],
  ])('rejects %j', async (body, message) => {
    const r = await create(body);
    expect(r.status).toBe(400);
    expect((r.json.error as Json).status).toBe('INVALID_ARGUMENT');
    expect((r.json.error as Json).message).toContain(message);
  });

  it('404 for unknown models, agents and previous interactions', async () => {
    expect((await create({ model: 'gpt-4o', input: 'x' })).status).toBe(404);
    expect((await create({ agent: 'no-agent', input: 'x', background: true })).status).toBe(404);
    expect((await create({ model: 'gemini-2.5-flash', input: 'x', previous_interaction_id: 'v1_nope' })).status).toBe(404);
  });

  it('keeps state: a second turn continues the first; GET shows the timeline; DELETE forgets it', async () => {
    const t1 = await create({ model: 'gemini-2.5-flash', input: 'hello', tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: { q: { type: 'string' } } } }] });
    expect(t1.json.status).toBe('requires_action');
    const fc = (t1.json.steps as Json[])[0]!;
    expect(fc).toMatchObject({ type: 'function_call', name: 'f', arguments: { q: 'Paris' } });
    const t2 = await create({ model: 'gemini-2.5-flash', previous_interaction_id: t1.json.id, input: [{ type: 'function_result', call_id: fc.id, result: 'ok' }] });
    expect(t2.json.status).toBe('completed');
    expect((t2.json.steps as Json[])[0]).toEqual({ type: 'model_output', content: [{ type: 'text', text: '[gemini-interactions] tool results: ok' }] });
    const got = await call('GET', `/v1beta/interactions/${String(t2.json.id)}`);
    expect((got.json.steps as Json[]).map((s) => s.type)).toEqual(['function_result', 'model_output']);
    expect((await call('DELETE', `/v1beta/interactions/${String(t2.json.id)}`)).status).toBe(200);
    expect((await call('GET', `/v1beta/interactions/${String(t2.json.id)}`)).status).toBe(404);
  });

  it('accepts thoughts it signed itself, and streams the documented event sequence with event ids', async () => {
    const sig = mockThoughtSignature('x');
    const r = await create({
      model: 'gemini-2.5-flash',
      stream: true,
      generation_config: { thinking_level: 'high', thinking_summaries: 'auto' },
      input: [{ type: 'user_input', content: [{ type: 'text', text: 'a' }] }, { type: 'thought', signature: sig }, { type: 'model_output', content: [{ type: 'text', text: 'b' }] }, { type: 'user_input', content: [{ type: 'text', text: 'c d' }] }],
    });
    expect(r.status).toBe(200);
    const frames = r.text.trim().split('\n\n').map((f) => Object.fromEntries(f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)])) as { event: string; data: string });
    expect(frames.map((f) => f.event)).toEqual([
      'interaction.created', 'interaction.status_update',
      'step.start', 'step.delta', 'step.stop',
      'step.start', 'step.delta', 'step.delta', 'step.delta', 'step.delta', 'step.delta', 'step.delta', 'step.stop',
      'interaction.completed', 'done',
    ]);
    expect(frames.at(-1)!.data).toBe('[DONE]');
    const data = frames.slice(0, -1).map((f) => JSON.parse(f.data) as Json);
    expect(data.every((d, i) => d.event_type === frames[i]!.event && typeof d.event_id === 'string')).toBe(true);
    const completed = data.at(-1)!.interaction as Json;
    expect(completed.steps).toBeUndefined();
    expect(completed.usage).toMatchObject({ total_input_tokens: 20, total_thought_tokens: 3 });
  });

  it('cancels only background interactions', async () => {
    const plain = await create({ model: 'gemini-2.5-flash', input: 'x' });
    expect((await call('POST', `/v1beta/interactions/${String(plain.json.id)}/cancel`)).status).toBe(400);
  });
});
