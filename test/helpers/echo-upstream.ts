/**
 * A leaky upstream on 127.0.0.1 that speaks OpenAI chat, Anthropic Messages, Gemini and the OpenAI
 * Images API, and puts a given text (a credential, in the tests) into its answers: inside the
 * normal content of a stream or a JSON body, or inside an error event in the middle of a stream.
 * For the secret-scrubbing tests (test/errors/secrets-redaction.test.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type EchoMode = 'content' | 'error';

export interface EchoUpstream {
  origin: string;
  /** What the next answers carry, and where. */
  set(mode: EchoMode, leak: string): void;
  close(): Promise<void>;
}

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function openAIChunk(delta: Record<string, unknown>, finish: string | null): unknown {
  return { id: 'chatcmpl-echo', object: 'chat.completion.chunk', created: 1, model: 'echo', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}

function openAIStream(mode: EchoMode, leak: string): string[] {
  const start = sse(openAIChunk({ role: 'assistant', content: 'Hello. ' }, null));
  if (mode === 'error') return [start, sse({ error: { message: `Incorrect API key provided: ${leak}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } })];
  return [
    start,
    sse(openAIChunk({ content: `The key is ${leak}.` }, null)),
    sse(openAIChunk({}, 'stop')),
    sse({ id: 'chatcmpl-echo', object: 'chat.completion.chunk', created: 1, model: 'echo', choices: [], usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } }),
    'data: [DONE]\n\n',
  ];
}

function anthropicStream(mode: EchoMode, leak: string): string[] {
  const start = [
    sse({ type: 'message_start', message: { id: 'msg_echo', type: 'message', role: 'assistant', model: 'echo', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }, 'message_start'),
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello. ' } }, 'content_block_delta'),
  ];
  if (mode === 'error') return [...start, sse({ type: 'error', error: { type: 'api_error', message: `Upstream trouble with key ${leak}.` } }, 'error')];
  return [
    ...start,
    sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `The key is ${leak}.` } }, 'content_block_delta'),
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
    sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }, 'message_delta'),
    sse({ type: 'message_stop' }, 'message_stop'),
  ];
}

function geminiChunk(text: string, finish?: string): unknown {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
    ...(finish ? { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 5, totalTokenCount: 8 } } : {}),
    modelVersion: 'echo',
  };
}

function geminiStream(mode: EchoMode, leak: string): string[] {
  const start = sse(geminiChunk('Hello. '));
  if (mode === 'error') return [start, sse({ error: { code: 500, message: `Backend failed for key ${leak}.`, status: 'INTERNAL' } })];
  return [start, sse(geminiChunk(`The key is ${leak}.`)), sse(geminiChunk('', 'STOP'))];
}

function syncBody(path: string, leak: string): unknown {
  const text = `The key is ${leak}.`;
  if (path.endsWith('/chat/completions')) {
    return { id: 'chatcmpl-echo', object: 'chat.completion', created: 1, model: 'echo', choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } };
  }
  if (path.endsWith('/messages')) {
    return { id: 'msg_echo', type: 'message', role: 'assistant', model: 'echo', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 5 } };
  }
  if (path.endsWith('/images/generations')) return { created: 1, data: [{ b64_json: 'aGVsbG8=', revised_prompt: text }] };
  return geminiChunk(text, 'STOP');
}

function streamFor(path: string, mode: EchoMode, leak: string): string[] {
  if (path.endsWith('/chat/completions')) return openAIStream(mode, leak);
  if (path.endsWith('/messages')) return anthropicStream(mode, leak);
  if (path.endsWith('/images/generations')) {
    const done = sse({ type: 'image_generation.completed', b64_json: 'aGVsbG8=', created_at: 1, size: '1024x1024', quality: 'low', background: 'opaque', output_format: 'png', revised_prompt: `The key is ${leak}.` }, 'image_generation.completed');
    // Split in the middle of the credential, in two writes: the relay sees it in two chunks.
    const cut = done.indexOf(leak) + Math.floor(leak.length / 2);
    return [done.slice(0, cut), done.slice(cut)];
  }
  return geminiStream(mode, leak);
}

async function answer(req: IncomingMessage, res: ServerResponse, mode: EchoMode, leak: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const body = (raw ? JSON.parse(raw) : {}) as { stream?: boolean };
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  const stream = body.stream === true || path.includes(':streamGenerateContent');
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(syncBody(path, leak)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const part of streamFor(path, mode, leak)) {
    res.write(part);
    await new Promise((r) => setTimeout(r, 5));
  }
  res.end();
}

export async function startEchoUpstream(): Promise<EchoUpstream> {
  let mode: EchoMode = 'content';
  let leak = '';
  const server = createServer((req, res) => {
    answer(req, res, mode, leak).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    set(m, l) {
      mode = m;
      leak = l;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
