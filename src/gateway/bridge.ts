/**
 * What a host bridge (adapters/) needs beyond the public API (index.ts): the Reply it gets from
 * `gateway.reply()` and how to write a text stream of it, the fixed origin of request URLs, the
 * body limit's 413, and error bodies in a path's protocol shape for answers the bridge gives
 * itself. Adapters import the core only through index.ts and this module (test/boundaries.test.ts).
 */
import { allowedMethods, shapeForPath } from '../endpoints/routes.js';
import type { GatewayError } from '../core/errors.js';
import { errorBodyFor } from '../protocols/shared/error-bodies.js';

export { isTextStream, pipeTextStream, Reply, toResponse, type ReplyBody, type TextSink, type TextStream } from '../reply/reply.js';
export { FIXED_ORIGIN, hasDotSegment, requestURL } from '../request/guards.js';
export { tooLarge as bodyTooLarge, type BodyReader } from '../request/body.js';
export { allowedMethods };

/** The JSON error body for `err` in the protocol shape of `path` (the route's, or OpenAI's). */
export function errorBodyText(path: string, err: GatewayError, traceId: string): string {
  return JSON.stringify(errorBodyFor(shapeForPath(path.split('?')[0] ?? '/'), err, traceId));
}
