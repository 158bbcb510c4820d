/**
 * Gemini agents reach the Gemini provider without being declared as models (issue 21, item 5):
 * through the @google/genai SDK's Interactions client, an `agent` goes to the only Gemini provider
 * (or the one marked `agents: true`), the key's model patterns still apply to the agent name (403),
 * and the upstream says whether the agent exists (a run that fails with Gemini's 404).
 */
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import { ConfigError, parseConfig, type Gateway, type GatewayConfigInput } from '../../../src/index.js';
import { AGENT, eventually, rawCall } from '../../helpers/interactions-gateway.js';
import { startMockGemini, type MockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

const KEY_ALL = 'mg-agent-routing-all-0001';
const KEY_MODELS_ONLY = 'mg-agent-routing-mod-0002';
const KEY_RESEARCH = 'mg-agent-routing-res-0003';

let gemini: MockGemini;
let gemini2: MockGemini;
let openai: MockOpenAI;

beforeAll(async () => {
  [gemini, gemini2, openai] = await Promise.all([startMockGemini(), startMockGemini(), startMockOpenAI()]);
});
afterAll(async () => {
  await Promise.all([gemini?.close(), gemini2?.close(), openai?.close()]);
});

interface Running {
  gateway: Gateway;
  server: RunningServer;
  client(key?: string): GoogleGenAI;
  close(): Promise<void>;
}

async function start(providers: GatewayConfigInput['providers']): Promise<Running> {
  const gateway = createShippedGateway({
    providers,
    // No agent is declared as a model.
    models: [
      { id: 'gemini-flash', provider: 'google', upstreamModel: 'gemini-2.5-flash' },
      { id: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o' },
    ],
    retry: { attempts: 1 },
    keys: [
      { id: 'all', key: KEY_ALL, models: ['*'] },
      { id: 'models-only', key: KEY_MODELS_ONLY, models: ['gemini-*', 'gpt'] },
      { id: 'research', key: KEY_RESEARCH, models: ['deep-research-*'] },
    ],
  });
  const server = await serve(gateway, { port: 0 });
  return {
    gateway,
    server,
    client: (apiKey = KEY_ALL) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.url } }),
    async close() {
      await server.close();
      await gateway.close();
    },
  };
}

/** The SDK's error for a failed call: its status and message. */
async function failure(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status?: number; message?: string } | undefined;
  expect(err, 'the call should have failed').toBeDefined();
  return { status: err?.status as number, message: String(err?.message) };
}

function agentCalls(m: MockGemini): Array<Record<string, unknown>> {
  return m.requests.filter((q) => q.path === '/v1beta/interactions').map((q) => q.body as Record<string, unknown>);
}

describe('one Gemini provider, no agent declared as a model', () => {
  let gw: Running;
  beforeAll(async () => {
    gw = await start([
      { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
    ]);
  });
  afterAll(() => gw?.close());

  it('the agent runs on the Gemini provider (background), and GET follows it to the report', async () => {
    const ai = gw.client();
    const before = agentCalls(gemini).length;
    const r = await ai.interactions.create({ agent: AGENT, input: 'sodium-ion batteries', background: true });
    expect(r.status).toBe('in_progress');
    expect(r.agent).toBe(AGENT);
    const done = await eventually(
      () => ai.interactions.get(r.id),
      (x) => x.status === 'completed',
    );
    expect(done.output_text).toBe('[gemini-interactions] research report on: sodium-ion batteries');
    const sent = agentCalls(gemini).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ agent: AGENT, background: true });
    expect(sent[0]?.model).toBeUndefined();
  });

  it("the key's model patterns apply to the agent name: 403 for a key without it, allowed by a matching pattern", async () => {
    const before = agentCalls(gemini).length;
    const forbidden = await failure(gw.client(KEY_MODELS_ONLY).interactions.create({ agent: AGENT, input: 'x', background: true }));
    expect(forbidden.status).toBe(403);
    expect(forbidden.message).toContain(AGENT);
    expect(agentCalls(gemini).length).toBe(before);
    const allowed = await gw.client(KEY_RESEARCH).interactions.create({ agent: AGENT, input: 'y', background: true });
    expect(allowed.status).toBe('in_progress');
  });

  it('an agent Gemini does not know: the run fails with Gemini\'s 404 (agents run in the background, so it shows on the interaction)', async () => {
    const ai = gw.client();
    const r = await ai.interactions.create({ agent: 'no-such-agent', input: 'x', background: true });
    const done = await eventually(
      () => ai.interactions.get(r.id),
      (x) => x.status !== 'in_progress',
    );
    expect(done.status).toBe('failed');
    const errors = (done as unknown as { errors: Array<{ code: string; message: string }> }).errors;
    expect(errors[0]?.code).toBe('NOT_FOUND');
    expect(errors[0]?.message).toContain('Agent no-such-agent not found');
    expect(agentCalls(gemini).at(-1)).toMatchObject({ agent: 'no-such-agent' });
  });
});

describe('several Gemini providers', () => {
  it('none marked for agents: a 404 saying how to configure one', async () => {
    const gw = await start([
      { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      { id: 'google-eu', type: 'gemini', baseURL: gemini2.baseURL, apiKey: gemini2.apiKey },
      { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
    ]);
    try {
      const res = await rawCall(gw.server.url, 'POST', '/v1beta/interactions', { agent: AGENT, input: 'x', background: true }, KEY_ALL);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toContain('"agents": true');
    } finally {
      await gw.close();
    }
  });

  it('the provider marked `agents: true` runs them', async () => {
    const gw = await start([
      { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      { id: 'google-eu', type: 'gemini', baseURL: gemini2.baseURL, apiKey: gemini2.apiKey, agents: true },
      { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
    ]);
    try {
      const first = agentCalls(gemini).length;
      const second = agentCalls(gemini2).length;
      const r = await gw.client().interactions.create({ agent: AGENT, input: 'tidal power', background: true });
      await eventually(
        () => gw.client().interactions.get(r.id),
        (x) => x.status === 'completed',
      );
      expect(agentCalls(gemini2).slice(second)).toMatchObject([{ agent: AGENT }]);
      expect(agentCalls(gemini).length).toBe(first);
    } finally {
      await gw.close();
    }
  });
});

describe('config', () => {
  it('`agents` is for Gemini providers, and for one of them', () => {
    let err: unknown;
    try {
      parseConfig({
        providers: [
          { id: 'openai', type: 'openai', apiKey: 'sk-x', agents: true },
          { id: 'g1', type: 'gemini', apiKey: 'g-x', agents: true },
          { id: 'g2', type: 'gemini', apiKey: 'g-y', agents: true },
        ],
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const issues = (err as ConfigError).issues.join('\n');
    expect(issues).toContain('providers.0.agents: only gemini providers run agents');
    expect(issues).toContain('providers.2.agents: only one provider may run agents');
  });
});
