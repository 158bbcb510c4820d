/**
 * The answer's `model` is the concrete model version that answered, never the caller's alias: every
 * client protocol (chat completions, Responses, Messages, Gemini `modelVersion`), sync and stream,
 * stored and replayed, through the official SDKs. Each alias here differs from what its upstream
 * reports (`claude` -> `claude-sonnet-4-5-20250929`, `gemini` -> `gemini-2.5-flash`, `compat` -> the
 * chat mock's `gpt-4o-2024-08-06`). The Interactions API: interactions-client.test.ts and
 * interactions-features.test.ts.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, RESP_KEY_A, startResponsesBed, type ResponsesBed } from '../../helpers/responses-gateway.js';

let bed: ResponsesBed;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

beforeAll(async () => {
  bed = await startResponsesBed();
  openai = bed.client();
  anthropic = new Anthropic({ baseURL: bed.server.url, apiKey: RESP_KEY_A, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: RESP_KEY_A, httpOptions: { baseUrl: bed.server.url } });
});
afterAll(async () => {
  await bed?.close();
});

const VENDORS = [
  { alias: 'claude', concrete: 'claude-sonnet-4-5-20250929' },
  { alias: 'gemini', concrete: 'gemini-2.5-flash' },
  { alias: 'compat', concrete: 'gpt-4o-2024-08-06' },
];

describe.each(VENDORS)('$alias (upstream reports $concrete)', ({ alias, concrete }) => {
  it('chat completions, sync and stream', async () => {
    const sync = await openai.chat.completions.create({ model: alias, messages: [{ role: 'user', content: 'hi' }] });
    expect(sync.model).toBe(concrete);
    const chunks = [];
    for await (const c of await openai.chat.completions.create({ model: alias, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(1);
    expect(new Set(chunks.map((c) => c.model))).toEqual(new Set([concrete]));
  });

  it('Responses: sync, stream, retrieve, replayed stream, background', async () => {
    const sync = await openai.responses.create({ model: alias, input: 'hi' });
    expect(sync.model).toBe(concrete);
    expect((await openai.responses.retrieve(sync.id)).model).toBe(concrete);
    const replay = [];
    for await (const ev of await openai.responses.retrieve(sync.id, { stream: true })) replay.push(ev);
    const replayed = replay.flatMap((ev) => ('response' in ev ? [ev.response.model] : []));
    expect(replayed.length).toBeGreaterThan(1);
    expect(new Set(replayed)).toEqual(new Set([concrete]));

    const events = [];
    for await (const ev of await openai.responses.create({ model: alias, input: 'hi', stream: true })) events.push(ev);
    const streamed = events.flatMap((ev) => ('response' in ev ? [ev.response.model] : []));
    expect(streamed[0]).toBe(concrete);
    expect(new Set(streamed)).toEqual(new Set([concrete]));

    const queued = await openai.responses.create({ model: alias, input: 'later', background: true });
    // Before the upstream answers: the model it is asked for (configured upstreamModel), never the alias.
    expect(queued.model).not.toBe(alias);
    const done = await eventually(() => openai.responses.retrieve(queued.id), (r) => r.status === 'completed');
    expect(done.model).toBe(concrete);
  });

  it('Messages, sync and stream', async () => {
    const sync = await anthropic.messages.create({ model: alias, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(sync.model).toBe(concrete);
    const stream = anthropic.messages.stream({ model: alias, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    const final = await stream.finalMessage();
    expect(final.model).toBe(concrete);
  });

  it('Gemini generateContent modelVersion, sync and stream', async () => {
    const sync = await google.models.generateContent({ model: alias, contents: 'hi' });
    expect(sync.modelVersion).toBe(concrete);
    const versions: Array<string | undefined> = [];
    for await (const c of await google.models.generateContentStream({ model: alias, contents: 'hi' })) versions.push(c.modelVersion);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set([concrete]));
  });
});
