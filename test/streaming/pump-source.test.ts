/**
 * The stream pump's hand-written source (src/upstream/pump-source.ts) keeps an async generator's
 * contract, and the request observer's hooks (ObservableChunks, observability/finishing.ts) are told of
 * every chunk and of the end exactly once: ended, failed, returned mid-stream or before the start.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { isTextStream, type TextStream } from '../../src/reply/reply.js';
import { finishing } from '../../src/observability/finishing.js';
import type { UpstreamResult } from '../../src/upstream/call.js';
import { byteRelayTransform, pumpReply, type StreamTransform } from '../../src/upstream/stream-pump.js';

function upstream(chunks: string[], onDone: () => void, fail?: Error): UpstreamResult {
  const enc = new TextEncoder();
  let i = 0;
  const controller = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++] as string));
      else if (fail) c.error(fail);
      else c.close();
    },
  });
  return { response: new Response(body), abort: (r) => controller.abort(r), signal: controller.signal, touch: () => undefined, done: onDone, timedOut: () => undefined };
}

function pumped(chunks: string[], transform: StreamTransform = byteRelayTransform(), fail?: Error) {
  const log: string[] = [];
  const reply = pumpReply({
    upstream: upstream(chunks, () => log.push('done'), fail),
    transform,
    clientSignal: new AbortController().signal,
    secrets: ['sk-secret-0000'],
    headers: {},
    keepAlive: false,
    onEnd: async (f, completed) => void log.push(`end ${f?.code ?? '-'} ${completed}`),
  });
  if (!isTextStream(reply.body)) throw new Error('expected a text stream');
  const body: TextStream = reply.body;
  const chunksOut = finishing(body.chunks, () => log.push('chunk'), () => log.push('finish'));
  return { log, chunks: chunksOut, hooked: chunksOut === body.chunks };
}

async function drain(gen: AsyncGenerator<string>): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const r = await gen.next();
    if (r.done) return out;
    out.push(r.value);
  }
}

describe('pump source', () => {
  it('takes the observer hooks instead of a wrapper and ends with the bookkeeping once', async () => {
    const s = pumped(['a', 'b sk-secret-0000']);
    expect(s.hooked).toBe(true);
    expect(await drain(s.chunks)).toEqual(['a', 'b [redacted]']);
    expect(s.log).toEqual(['chunk', 'chunk', 'done', 'end - true', 'finish']);
    expect(await s.chunks.next()).toEqual({ done: true, value: undefined });
    await s.chunks.return(undefined);
    expect(s.log.filter((l) => l === 'finish')).toHaveLength(1);
  });

  it('returned before its first read: no bookkeeping, but the observer finishes', async () => {
    const s = pumped(['a']);
    expect(await s.chunks.return(undefined)).toEqual({ done: true, value: undefined });
    expect(s.log).toEqual(['finish']);
    expect(await s.chunks.next()).toEqual({ done: true, value: undefined });
  });

  it('returned mid-stream (also while a read is pending): the end runs once, not completed', async () => {
    const s = pumped(['a', 'b', 'c']);
    expect(await s.chunks.next()).toEqual({ done: false, value: 'a' });
    const pending = s.chunks.next();
    const returned = s.chunks.return(undefined);
    expect(await pending).toEqual({ done: false, value: 'b' });
    expect(await returned).toEqual({ done: true, value: undefined });
    expect(s.log).toEqual(['chunk', 'chunk', 'done', 'end - false', 'finish']);
  });

  it('a transform that throws: what it emitted goes out first, then the in-band error', async () => {
    const transform: StreamTransform = {
      push(chunk, emit) {
        emit(new TextDecoder().decode(chunk));
        throw new GatewayError('bad_gateway', 'cut sk-secret-0000');
      },
      end: () => undefined,
      error: (err) => `<${err.message}>`,
    };
    const s = pumped(['x'], transform);
    expect(await drain(s.chunks)).toEqual(['x', '<cut [redacted]>']);
    expect(s.log).toEqual(['chunk', 'chunk', 'done', 'end bad_gateway false', 'finish']);
  });

  it('a failure without an in-band error rejects after the bookkeeping', async () => {
    const s = pumped(['x'], byteRelayTransform(), new Error('socket'));
    expect(await s.chunks.next()).toEqual({ done: false, value: 'x' });
    await expect(s.chunks.next()).rejects.toMatchObject({ code: 'bad_gateway' });
    expect(s.log).toEqual(['chunk', 'done', 'end bad_gateway false', 'finish']);
    expect(await s.chunks.next()).toEqual({ done: true, value: undefined });
  });
});
