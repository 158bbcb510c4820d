/**
 * The node bridge's body reader: the gateway calls it (HandleContext.readBody) only once the key,
 * route, method and media type passed, so nothing is buffered for a caller that gets a 401, 404,
 * 405 or 415. It holds the body to a byte limit (Content-Length at once, then while reading) and to
 * an idle timeout, and stops reading when either is passed; the bridge then closes the connection.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../src/index.js';
import { bodyTooLarge as tooLarge } from '../src/gateway/bridge.js';

/** A request body that sends nothing for this long is cut (408), by default; ms. */
export const DEFAULT_BODY_IDLE_MS = 30_000;

/** What the bridge knows and learns of one request's body, kept with the request's own reader. */
export interface BodyMarks {
  /** The client waits for `100 Continue` (serve() answers `checkContinue` itself): the reader sends it when the body is wanted. */
  continueDeferred: boolean;
  /** The body was read to its last byte before the parser saw the message end. */
  readInFull: boolean;
}

export interface NodeBodyLimits {
  /** Lowers the limit the gateway asks for; never raises it. */
  maxBodyBytes?: number;
  /** Longest pause between body chunks, in ms (0: none). */
  bodyIdleTimeoutMs: number;
}

/** A `readBody(limit)` for one node request. */
export function nodeBodyReader(req: IncomingMessage, res: ServerResponse, limits: NodeBodyLimits, marks: BodyMarks = { continueDeferred: false, readInFull: false }): (limit: number) => Promise<Uint8Array> {
  return (requested) =>
    new Promise<Uint8Array>((resolve, reject) => {
      const limit = limits.maxBodyBytes && limits.maxBodyBytes < requested ? limits.maxBodyBytes : requested;
      const declared = Number(req.headers['content-length'] ?? Number.NaN);
      // Refused from the header alone: the client is told before it sends a byte of the body.
      if (declared > limit) return reject(tooLarge(limit));
      if (req.readableEnded) return resolve(new Uint8Array(0));
      // A chunked body received in full but past the limit: left unread (node discards it after the 413).
      if (req.complete && req.readableLength > limit) return reject(tooLarge(limit));
      const buffered = bufferedBody(req, declared, marks);
      if (buffered) return resolve(buffered);
      if (marks.continueDeferred) {
        marks.continueDeferred = false;
        res.writeContinue();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let timer: NodeJS.Timeout | undefined;
      const stop = (err: GatewayError) => {
        cleanup();
        // Leave the rest unread: the bridge answers with `Connection: close` and the socket goes.
        req.pause();
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) return stop(tooLarge(limit));
        chunks.push(chunk);
        timer?.refresh();
      };
      const onEnd = () => {
        cleanup();
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
        resolve(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength));
      };
      const onGone = () => stop(new GatewayError('invalid_request', 'The client stopped sending the request body.'));
      const onIdle = () => stop(new GatewayError('request_timeout', `No request body bytes arrived for ${limits.bodyIdleTimeoutMs} ms.`));
      function cleanup(): void {
        if (timer) clearTimeout(timer);
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onGone);
        res.off('close', onGone);
      }
      // A body already received in full cannot stall: no timer for it (the common, small case).
      if (limits.bodyIdleTimeoutMs > 0 && !req.complete) timer = setTimeout(onIdle, limits.bodyIdleTimeoutMs);
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', onGone);
      res.once('close', onGone);
    });
}

/**
 * The whole body when the parser has already received all of it (the common case of a small body
 * that came with the headers): all its Content-Length bytes, or a complete chunked body, read from
 * the stream's buffer in one call without a listener or a timer. On Express, which swaps the
 * request's prototype, every listener added to or removed from the request costs microseconds; this
 * adds none. Undefined when the body is still arriving, the stream is already flowing (someone else
 * reads it) or decodes to strings.
 */
function bufferedBody(req: IncomingMessage, declared: number, marks: BodyMarks): Uint8Array | undefined {
  if (req.readableFlowing || req.readableEncoding !== null) return undefined;
  const buffered = req.readableLength;
  if (buffered !== declared && !(req.complete && Number.isNaN(declared))) return undefined;
  marks.readInFull = true;
  const chunk = buffered > 0 ? (req.read() as Buffer | null) : null;
  return chunk ? new Uint8Array(chunk.buffer as ArrayBuffer, chunk.byteOffset, chunk.byteLength) : new Uint8Array(0);
}

/**
 * Whether every byte of the request was received (an answer then leaves the connection open), also
 * when the parser has not yet flagged the message complete.
 */
export function receivedInFull(req: IncomingMessage, marks: BodyMarks): boolean {
  return req.complete || marks.readInFull;
}
