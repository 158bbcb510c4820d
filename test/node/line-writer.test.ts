/**
 * The standalone server's line writer: lines held for a batch still leave within maxDelayMs (an idle
 * server's last access-log lines too), a full batch leaves at once, writeNow never waits, and
 * flushSync writes out whatever is held.
 */
import { pbkdf2 } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLineWriter } from '../../node/line-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'mg-line-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
}

describe('createLineWriter with batching', () => {
  it('holds a few lines below minBytes, then writes them within maxDelayMs', async () => {
    const file = join(dir, 'held.log');
    const w = createLineWriter(file, (err) => {
      throw err;
    }, { minBytes: 1 << 20, maxDelayMs: 100 });
    w.write('one');
    w.write('two');
    expect(read(file)).toBe('');
    await until(() => read(file) === 'one\ntwo\n');
    expect(read(file)).toBe('one\ntwo\n');
  });

  it('writes a full batch at once and writeNow without waiting for a batch; flushSync writes what is held', async () => {
    const file = join(dir, 'batch.log');
    const w = createLineWriter(file, (err) => {
      throw err;
    }, { minBytes: 64, maxDelayMs: 60_000 });
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i} ${'x'.repeat(20)}`);
    for (const l of lines) w.write(l);
    await until(() => read(file).split('\n').length > 3);
    expect(read(file).startsWith(`${lines[0]}\n${lines[1]}\n`)).toBe(true);
    w.writeNow('now');
    await until(() => read(file).endsWith('now\n'));
    expect(read(file)).toBe(`${lines.join('\n')}\nnow\n`);
    w.write('held');
    w.flushSync();
    expect(read(file)).toBe(`${lines.join('\n')}\nnow\nheld\n`);
  });

  it('flushSync writes held lines before it returns, also when the thread pool is busy (the exit path)', async () => {
    // Held lines used to be handed to the idle asynchronous writer, whose write then waited for a
    // thread of libuv's pool while flushSync counted it as in flight and returned: at exit they were
    // lost. Busy pool threads (pbkdf2 here; DNS lookups and file reads in a server) make that certain.
    const file = join(dir, 'exit.log');
    const w = createLineWriter(file, (err) => {
      throw err;
    }, { minBytes: 1 << 20, maxDelayMs: 60_000 });
    w.write('first');
    w.write('second');
    const busy = Array.from({ length: 8 }, () => new Promise((r) => pbkdf2('p', 's', 300_000, 32, 'sha256', r)));
    w.flushSync();
    const afterFlush = read(file);
    w.write('third');
    w.flushSync();
    const afterSecondFlush = read(file);
    await Promise.all(busy);
    expect(afterFlush).toBe('first\nsecond\n');
    expect(afterSecondFlush).toBe('first\nsecond\nthird\n');
    expect(read(file)).toBe('first\nsecond\nthird\n');
  });
});
