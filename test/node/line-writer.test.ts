/**
 * The standalone server's line writer: lines held for a batch still leave within maxDelayMs (an idle
 * server's last access-log lines too), a full batch leaves at once, writeNow never waits, and
 * flushSync writes out whatever is held.
 */
import { pbkdf2 } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
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

  it('flushSync writes held lines to a pipe before it returns, also when the thread pool is busy (the exit path)', async () => {
    // Held lines used to be handed to the idle asynchronous writer, whose write then waited for a
    // thread of libuv's pool while flushSync counted it as in flight and returned: at exit they were
    // lost. Busy pool threads (pbkdf2 here; DNS lookups and file reads in a server) make that certain.
    // A pipe (stdout under Docker or systemd) is written asynchronously; this one is read without blocking.
    const fifo = join(dir, 'exit.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const drain = () => {
      const buf = Buffer.alloc(1 << 16);
      try {
        return buf.subarray(0, readSync(reader, buf)).toString();
      } catch {
        return ''; // EAGAIN: nothing there
      }
    };
    const w = createLineWriter(fifo, (err) => {
      throw err;
    }, { minBytes: 1 << 20, maxDelayMs: 60_000 });
    w.write('first');
    w.write('second');
    const busy = Array.from({ length: 8 }, () => new Promise((r) => pbkdf2('p', 's', 300_000, 32, 'sha256', r)));
    w.flushSync();
    const afterFlush = drain();
    w.write('third');
    w.flushSync();
    const afterSecondFlush = drain();
    await Promise.all(busy);
    await new Promise((r) => setTimeout(r, 50));
    const later = drain();
    closeSync(reader);
    expect(afterFlush).toBe('first\nsecond\n');
    expect(afterSecondFlush).toBe('third\n');
    expect(later).toBe('');
  });

  it('writes a regular file synchronously, a batch per write (a pipe or a terminal stays asynchronous)', () => {
    const file = join(dir, 'sync.log');
    const w = createLineWriter(file, (err) => {
      throw err;
    }, { minBytes: 16, maxDelayMs: 60_000 });
    w.write('short');
    expect(read(file)).toBe('');
    w.write('makes the batch full');
    // No turn of the event loop in between: the batch is in the file when write() returns.
    expect(read(file)).toBe('short\nmakes the batch full\n');
    w.writeNow('now');
    expect(read(file)).toBe('short\nmakes the batch full\nnow\n');
  });
});
