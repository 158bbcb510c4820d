/**
 * Lingering close, as nginx does it: an answer sent before the request body was received in full
 * (413, 401, 415, 408) goes out with `Connection: close`, and then the connection is not closed at
 * once. A socket closed with unread bytes in its receive buffer (or with bytes still arriving) is
 * reset (RST), and the client's TCP stack then throws away the answer it had not read yet: a
 * client that sends its whole body before reading (Node's fetch, Python's requests, the SDKs) sees
 * EPIPE / ECONNRESET instead of the 413. So after the answer the server half-closes (FIN), keeps
 * reading and discarding what the client still sends, and closes once the body has arrived or the
 * client closed its side; at the latest after `ms` or `bytes` discarded, whatever the client does.
 *
 * node:http closes a `Connection: close` response's socket with `socket.destroySoon()` once the
 * answer is written; this replaces that one call on that one socket.
 */
import type { IncomingMessage } from 'node:http';

export interface LingerBounds {
  /** Longest time to keep discarding after the answer, ms. */
  ms: number;
  /** Most body bytes discarded after the answer before the connection is cut anyway. */
  bytes: number;
}

/** nginx's lingering_time is 30 s; 64 MiB covers a body twice the default 32 MiB limit. */
export const LINGER_DEFAULTS: LingerBounds = { ms: 30_000, bytes: 64 * 1024 * 1024 };

/** nginx's lingering_timeout: a client that sends nothing for this long is not waited for. */
const LINGER_IDLE_MS = 5_000;

/**
 * Makes the close that follows the answer to `req` a lingering one. Call it before the answer is
 * written; it does nothing when the body is already in (nothing left to read, so no reset).
 */
export function lingerOnClose(req: IncomingMessage, bounds: LingerBounds = LINGER_DEFAULTS): void {
  const socket = req.socket as IncomingMessage['socket'] | null;
  if (!socket || socket.destroyed || req.complete || typeof socket.destroySoon !== 'function') return;
  const closeNow = socket.destroySoon;
  socket.destroySoon = function lingeringClose() {
    Reflect.deleteProperty(socket, 'destroySoon'); // the prototype's again, for anything after this
    if (req.complete || socket.destroyed) return closeNow.call(socket);
    let discarded = 0;
    const stop = () => {
      clearTimeout(total);
      clearTimeout(idle);
      req.off('data', onData);
      req.off('end', done);
      socket.off('end', done);
      socket.off('close', stop);
    };
    // The body is in, or the client closed its side: close once the answer has left.
    const done = () => {
      stop();
      closeNow.call(socket);
    };
    // A bound was reached: cut.
    const cut = () => {
      stop();
      socket.destroy();
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > bounds.bytes) return cut();
      idle.refresh();
    };
    const total = setTimeout(cut, bounds.ms);
    const idle = setTimeout(cut, Math.min(bounds.ms, LINGER_IDLE_MS));
    // node:http's `finish` already dumped an unread body (req._dump); a body the bridge stopped
    // reading at the limit is paused: either way it flows into onData from here on.
    req.on('data', onData);
    req.once('end', done);
    socket.once('end', done);
    socket.once('close', stop);
    req.resume();
    socket.end();
  };
}
