/**
 * What a host bridge (adapters/) needs beyond the public API (index.ts): the gateway's bridge
 * (GatewayBridge: an answer as a Reply, with the bridge's own body source and word of the client
 * leaving), how to write a text stream of a Reply, the fixed origin of request URLs, the body
 * limit's 413, and error bodies in a path's protocol shape for answers the bridge gives itself.
 * Adapters import the core only through index.ts and this module (test/boundaries.test.ts).
 */
import type { OnClientGone } from '../core/client-gone.js';
import { allowedMethods, shapeForPath } from '../endpoints/routes.js';
import type { GatewayError } from '../core/errors.js';
import { errorBodyFor } from '../protocols/shared/error-bodies.js';
import type { Reply } from '../reply/reply.js';
import type { BodyReader } from '../request/body.js';
import type { HandleContext } from './options.js';

/** What a host bridge tells the gateway of a request beyond HandleContext. */
export interface BridgeContext extends HandleContext {
  /**
   * For a bridge that hears of the client leaving from its own events (the node bridge: the
   * response's `close`): registers `listener`, called once if the client goes away before the
   * answer is sent (at once if it already has), and returns a function that unregisters it. The
   * request's upstream calls then follow the client through it; `signal` is read only when
   * something else needs it, so the bridge may build it lazily.
   */
  onClientGone?: OnClientGone;
  /**
   * The request body, when the host already holds it as bytes (a body parser read it); the
   * endpoints then read these instead of `request.body`.
   */
  body?: Uint8Array;
  /**
   * A lazy body source, for a bridge that has not read the body yet (the node bridge): called at
   * most once, only by an endpoint that takes a body and only after the key, route, method and
   * media-type checks passed, with the gateway's `limits.maxBodyBytes`. It resolves to the bytes as
   * sent (still content-encoded) or rejects, ideally with a 413 GatewayError once `limit` is passed;
   * any other rejection becomes a 400. An anonymous caller thus gets its 401 before it sends a body.
   */
  readBody?: BodyReader;
}

/** The one interface a host bridge serves through (Gateway.bridge); applications use Gateway.handle(). */
export interface GatewayBridge {
  /** handle() with what the bridge knows beyond HandleContext (the Fetch-API hosts' bridge, adapters/fetch.ts). Never throws. */
  handle(request: Request, context?: BridgeContext): Promise<Response>;
  /**
   * Like handle(), for a bridge that writes to a socket itself: the answer as a Reply (status,
   * headers, and a text, bytes, byte stream or text stream body) that has not been made into a
   * Response. Never throws.
   */
  reply(request: Request, context?: BridgeContext): Promise<Reply>;
}

export { isTextStream, pipeTextStream, Reply, toResponse, type ReplyBody, type TextSink, type TextStream } from '../reply/reply.js';
export { KEEP_ALIVE_TEXT, pipeChunks, type ChunkSink, type ChunkSource } from '../reply/stream-writer.js';
export { FIXED_ORIGIN, hasDotSegment, requestURL } from '../request/guards.js';
export { tooLarge as bodyTooLarge, type BodyReader } from '../request/body.js';
export { allowedMethods };

/** The JSON error body for `err` in the protocol shape of `path` (the route's, or OpenAI's). */
export function errorBodyText(path: string, err: GatewayError, traceId: string): string {
  return JSON.stringify(errorBodyFor(shapeForPath(path.split('?')[0] ?? '/'), err, traceId));
}
