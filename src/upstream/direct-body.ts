/**
 * A streamed upstream body read without a Web ReadableStream. An upstream client that can hand
 * its bytes over more cheaply (the node bridge's undici client, node/upstream-response.ts) puts a
 * method under `DIRECT_BODY_READER` on its Response; every other fetch (Bun, Deno, Workers, the
 * platform's) is read through `body.getReader()`, so the core does not depend on it.
 */

/** The part of a ReadableStreamDefaultReader the stream pump uses. */
export interface BodyReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Stops the body (and the upstream call, unless it ended); a pending read then ends. */
  cancel(reason?: unknown): Promise<void>;
  /**
   * True when aborting the upstream call fails a pending read by itself (the fetch that made the
   * body fails it), so the reader needs no listener on the call's signal.
   */
  readonly followsAbort?: boolean;
}

export const DIRECT_BODY_READER: unique symbol = Symbol.for('modelgate.directBodyReader');

/** A reader of `response`'s body: the direct one when the upstream client offers it, else the Web stream's; undefined without a body. */
export function bodyReader(response: Response): BodyReader | undefined {
  const direct = (response as { [DIRECT_BODY_READER]?: () => BodyReader | undefined })[DIRECT_BODY_READER];
  return (typeof direct === 'function' ? direct.call(response) : undefined) ?? response.body?.getReader();
}
