/**
 * A streamed upstream body read without a Web ReadableStream. An upstream client that can hand
 * its bytes over more cheaply (the node bridge's undici client, node/upstream-response.ts) answers
 * with a DirectBodyResponse; every other fetch's Response (Bun, Deno, Workers, the platform's) is
 * read through `body.getReader()`, so the core does not depend on it.
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

/** A Response whose body can be read without a Web stream. */
export interface DirectBodyResponse extends Response {
  /** The body's reader, built without a ReadableStream; undefined when the answer has no body. */
  directBodyReader(): BodyReader | undefined;
  /** One header's value (lower-case name), as `headers.get` answers it, without building a Headers object. */
  directHeader?(name: string): string | null;
}

/**
 * `response.headers.get(name)` (`name` lower-case) without building the Headers object when the
 * upstream client can answer it from its own list: that object costs a streamed pass-through about
 * 2% of its CPU (bench profile of openai-stream, 2026-11-28).
 */
export function responseHeader(response: Response, name: string): string | null {
  const direct = (response as Partial<DirectBodyResponse>).directHeader;
  return typeof direct === 'function' ? direct.call(response, name) : response.headers.get(name);
}

/** A reader of `response`'s body: the direct one when the upstream client offers it, else the Web stream's; undefined without a body. */
export function bodyReader(response: Response): BodyReader | undefined {
  const direct = typeof (response as Partial<DirectBodyResponse>).directBodyReader === 'function' ? (response as DirectBodyResponse).directBodyReader() : undefined;
  return direct ?? response.body?.getReader();
}
