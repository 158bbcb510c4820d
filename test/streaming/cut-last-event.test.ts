/**
 * An upstream SSE stream cut inside its last event (`data: {"id":"chatcmpl-1","obje` and the
 * connection closed) is relayed without that fragment: the client reads the whole events, then the
 * gateway's in-band error, never a truncated JSON event its parser fails on. Pass-through OpenAI
 * chat and Anthropic Messages, through the node server and upstream client, the official SDKs.
 * Likewise an OpenAI stream whose [DONE] comes with no finish_reason before it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveShipped } from '../helpers/shipped-gateway.js';

const KEY = 'mg-cut-last-event-0001';
const OPENAI_CHUNK = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-2024-08-06', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] };
let upstream: Server;
let server: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (body.includes('gpt-nofinish')) {
        // [DONE] without any finish_reason: the answer was cut, whatever [DONE] says.
        res.write(`data: ${JSON.stringify(OPENAI_CHUNK)}\n\n`);
        res.end('data: [DONE]\n\n');
      } else if (req.url?.startsWith('/v1/messages')) {
        res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x-1', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 0 } } })}\n\n`);
        res.end('event: content_block_start\ndata: {"type":"content_block_start","index"');
      } else {
        res.write(`data: ${JSON.stringify(OPENAI_CHUNK)}\n\n`);
        res.end('data: {"id":"chatcmpl-1","obje');
      }
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  server = await serveShipped({
    providers: [
      { id: 'openai', type: 'openai', baseURL: `${base}/v1`, apiKey: 'sk-upstream-cut-0001' },
      { id: 'anthropic', type: 'anthropic', baseURL: base, apiKey: 'sk-ant-upstream-cut-0001' },
    ],
    models: [
      { id: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o' },
      { id: 'nofinish', provider: 'openai', upstreamModel: 'gpt-nofinish' },
      { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-x' },
    ],
    retry: { attempts: 1 },
    keys: [{ id: 'caller', key: KEY }],
  });
});
afterAll(async () => {
  await server?.close();
  await new Promise((r) => upstream?.close(r));
});

/** The deltas the OpenAI SDK read from a stream of `model`, and the error it ended with. */
async function openAIStream(model: string): Promise<{ seen: string[]; err: unknown }> {
  const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const seen: string[] = [];
  const err = await (async () => {
    for await (const c of stream) seen.push(c.choices[0]?.delta.content ?? '');
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { seen, err };
}

describe('a stream cut inside its last event', () => {
  it('OpenAI chat: the SDK reads the first chunk, then the in-band error (not a JSON parse error)', async () => {
    const { seen, err } = await openAIStream('gpt');
    expect(seen).toEqual(['Hel']);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain('ended before');
    const raw = await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }) })).text();
    expect(raw).not.toContain('"obje\n');
  });

  it('OpenAI chat: [DONE] with no finish_reason before it is a cut answer: the in-band error, not [DONE]', async () => {
    const { seen, err } = await openAIStream('nofinish');
    expect(seen).toEqual(['Hel']);
    expect((err as Error).message).toContain('ended before a finish_reason');
  });

  it('Anthropic Messages: the SDK gets the error event, not a truncated content_block_start', async () => {
    const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    const err = await stream.finalMessage().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as Error).message).toContain('ended before');
  });
});
