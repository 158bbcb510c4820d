/**
 * The standalone server's output: its stdout and its access log (stdout or a file), each through a
 * buffered asynchronous writer (sonic-boom, the writer under pino). Lines written while a write is
 * in flight are gathered and leave in the next write, so a busy server makes one write per batch
 * of lines instead of one `process.stdout.write` per request (that was 13-17% of its CPU). What is
 * still buffered is written out synchronously at exit (`flushSync`, also on the process's 'exit'
 * event), waiting for a slow reader of the pipe if it must: a SIGTERM/SIGINT shutdown or a
 * `process.exit` loses no line. (`process.stdout` queues writes in memory when its pipe is full and
 * drops that queue at `process.exit`.)
 */
import { openSync } from 'node:fs';
import sonicBoom from 'sonic-boom';

export interface LineWriter {
  /** Appends one line (a newline is added). */
  write(line: string): void;
  /** Writes out everything buffered, synchronously. */
  flushSync(): void;
}

/**
 * `file` undefined: stdout. Otherwise the file is appended to (created if missing); a path that
 * cannot be opened throws here, at startup. `onError`: writing failed (stdout closed, disk gone);
 * this writer stops, the server goes on.
 */
export function createLineWriter(file: string | undefined, onError: (err: Error) => void): LineWriter {
  let fd = 1;
  if (file !== undefined) {
    try {
      fd = openSync(file, 'a');
    } catch (err) {
      throw new Error(`cannot open ${JSON.stringify(file)} for appending: ${(err as Error).message}`);
    }
  }
  const sink = new sonicBoom.SonicBoom({ fd, sync: false });
  let failed = false;
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    onError(err);
  };
  sink.on('error', fail);
  const flushSync = () => {
    if (failed) return;
    try {
      sink.flushSync();
    } catch (err) {
      fail(err as Error);
    }
  };
  process.on('exit', flushSync);
  return {
    write: (line) => {
      if (!failed) sink.write(`${line}\n`);
    },
    flushSync,
  };
}
