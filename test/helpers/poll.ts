/** Waiting for asynchronous outcomes without timing assertions. */

/** Resolves when `done` holds for a probe's value, polling every `intervalMs`; fails after `tries` (only progress is asserted, never time). */
export async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean, tries: number, intervalMs: number): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < tries; i++) {
    last = await probe();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`condition not reached; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
}

/** Collects a stream's events. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}
