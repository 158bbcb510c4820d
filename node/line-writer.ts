/**
 * The standalone server's output: its stdout and its access log (stdout or a file), each through a
 * buffered writer (sonic-boom, the writer under pino): asynchronous to a pipe, a socket or a
 * terminal, synchronous a batch at a time to a regular file. Lines written while a write is in
 * flight are gathered and leave in the next write, so a busy server makes one write per batch
 * of lines instead of one `process.stdout.write` per request (that was 13-17% of its CPU). What is
 * still buffered is written out synchronously at exit (`flushSync`, also on the process's 'exit'
 * event), waiting for a slow reader of the pipe if it must: a SIGTERM/SIGINT shutdown or a
 * `process.exit` loses no line. (`process.stdout` queues writes in memory when its pipe is full and
 * drops that queue at `process.exit`.)
 */
import { fstatSync, openSync } from 'node:fs';
import sonicBoom from 'sonic-boom';

export interface LineWriter {
  /** Appends one line (a newline is added); with `batch`, it may wait for more lines (up to `maxDelayMs`). */
  write(line: string): void;
  /** Appends one line and starts writing at once (messages a person or a script waits for). */
  writeNow(line: string): void;
  /** Writes out everything buffered, synchronously. */
  flushSync(): void;
}

/**
 * Batching of a busy writer (the access log): lines wait until `minBytes` (characters) are gathered or
 * `maxDelayMs` passed, so a server at thousands of requests a second makes tens of writes a second,
 * not one per event-loop turn (measured in bench/: see the access log's share of the CPU in
 * bench/RESULTS.md).
 */
export interface LineBatching {
  minBytes: number;
  maxDelayMs: number;
}

/** The standalone server's batching of its access log: 8 KiB or 200 ms, whichever comes first. */
export const ACCESS_LOG_BATCHING: LineBatching = { minBytes: 8 * 1024, maxDelayMs: 200 };

/**
 * `file` undefined: stdout. Otherwise the file is appended to (created if missing); a path that
 * cannot be opened throws here, at startup. `onError`: writing failed (stdout closed, disk gone);
 * this writer stops, the server goes on.
 */
export function createLineWriter(file: string | undefined, onError: (err: Error) => void, batching?: LineBatching): LineWriter {
  let fd = 1;
  if (file !== undefined) {
    try {
      fd = openSync(file, 'a');
    } catch (err) {
      throw new Error(`cannot open ${JSON.stringify(file)} for appending: ${(err as Error).message}`);
    }
  }
  // A regular file is written synchronously, a batch at a time (as nginx writes its buffered access
  // log): its writes go to the page cache and do not wait for a reader. An asynchronous write goes
  // through a thread of libuv's pool and back, two thread switches per batch on the server's core;
  // measured with the bench (`npm start` against `npm start --quiet`, 4 repetitions each,
  // 2026-11-28), the access log to a file cost 11 / 17 us per request (JSON / SSE) written
  // asynchronously, 6 / 12 us synchronously. A pipe, a socket or a terminal (stdout under Docker or
  // systemd) can stall for as long as its reader does, so those stay asynchronous.
  const sync = isRegularFile(fd);
  const sink = new sonicBoom.SonicBoom({ fd, sync });
  let failed = false;
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    onError(err);
  };
  sink.on('error', fail);
  // Lines gathered here until minBytes or maxDelayMs (batching), then handed to sonic-boom in one
  // piece; it writes at once when idle and gathers further pieces while a write is in flight.
  let pending = '';
  const hand = () => {
    if (failed || pending === '') return;
    const piece = pending;
    pending = '';
    sink.write(piece);
  };
  // Lines still gathered here are not handed to an asynchronous sink at a flush: when it is idle,
  // `sink.write` starts an asynchronous write, which its flushSync counts as in flight and leaves alone,
  // so those lines could still be unwritten when the process exits (seen: 3 flushes in 200 returned
  // before them). A synchronous writer on the same descriptor (the sink itself when it is one) writes
  // them, after what the sink holds; sonic-boom's sync mode keeps its retries on a full pipe (EAGAIN).
  let direct: sonicBoom.SonicBoom | undefined = sync ? sink : undefined;
  const flushSync = () => {
    if (failed) return;
    try {
      sink.flushSync();
      if (pending === '') return;
      const rest = pending;
      pending = '';
      if (!direct) {
        direct = new sonicBoom.SonicBoom({ fd, sync: true });
        direct.on('error', fail);
      }
      direct.write(rest);
    } catch (err) {
      fail(err as Error);
    }
  };
  process.on('exit', flushSync);
  const minBytes = batching?.minBytes ?? 0;
  if (batching) setInterval(hand, batching.maxDelayMs).unref();
  return {
    write: (line) => {
      if (failed) return;
      pending += `${line}\n`;
      if (pending.length >= minBytes) hand();
    },
    writeNow: (line) => {
      if (failed) return;
      pending += `${line}\n`;
      hand();
    },
    flushSync,
  };
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}
