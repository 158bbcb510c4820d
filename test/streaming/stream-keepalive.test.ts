import { afterEach, describe, expect, it, vi } from 'vitest';
import { KEEP_ALIVE_MS, textStreamReply, toResponse } from '../../src/reply/reply.js';

afterEach(() => {
  vi.useRealTimers();
});

function silentThen(text: string): { gen: AsyncGenerator<string>; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const gen = (async function* () {
    yield 'data: first\n\n';
    await gate;
    yield text;
  })();
  return { gen, release };
}

describe('stream keep-alive', () => {
  it('sends an SSE comment block while the upstream is silent, then the data', async () => {
    vi.useFakeTimers();
    const { gen, release } = silentThen('data: late\n\n');
    const reader = toResponse(textStreamReply(gen, () => {})).body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('data: first\n\n');
    const pending = reader.read();
    await vi.advanceTimersByTimeAsync(KEEP_ALIVE_MS + KEEP_ALIVE_MS / 3);
    expect(decoder.decode((await pending).value)).toBe(': keep-alive\n\n');
    release();
    // Drain any further keep-alives until the data arrives.
    let next = decoder.decode((await reader.read()).value);
    while (next.startsWith(':')) next = decoder.decode((await reader.read()).value);
    expect(next).toBe('data: late\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('sends nothing extra on non-SSE streams (Gemini JSON array)', async () => {
    vi.useFakeTimers();
    const { gen, release } = silentThen(']');
    const reader = toResponse(textStreamReply(gen, () => {}, { 'content-type': 'application/json' }, false)).body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('data: first\n\n');
    const pending = reader.read();
    await vi.advanceTimersByTimeAsync(KEEP_ALIVE_MS * 3);
    release();
    expect(decoder.decode((await pending).value)).toBe(']');
  });
});
