/**
 * Node-only: turns any request body `fetch` accepts into what undici's dispatcher can send, with
 * the content-type fetch would add. undici's dispatcher only knows strings, bytes and iterables;
 * a global FormData or Blob handed to it (or to the npm undici's fetch, whose classes differ from
 * the global ones) goes out as the text `[object FormData]`.
 */

/** A body undici's dispatcher sends as is: strings and bytes with content-length, iterables chunked. */
type WireBody = string | Uint8Array | AsyncIterable<Uint8Array> | null;

export interface PreparedBody {
  body: WireBody;
  /** What fetch's body extraction implies (multipart boundary included); used when the caller set none. */
  contentType: string | null;
  /** Stops reading a stream body (the call failed or was aborted). */
  cancel?: (reason: unknown) => void;
}

/** The kinds every call of the gateway's own hot path uses: no async step, no copy. */
export function isDirectBody(body: unknown): body is string | Uint8Array | null | undefined {
  return body === null || body === undefined || typeof body === 'string' || body instanceof Uint8Array;
}

/** A string gets text/plain, as fetch gives it; bytes have no type. */
export function directBody(body: string | Uint8Array | null | undefined): PreparedBody {
  if (typeof body === 'string') return { body, contentType: 'text/plain;charset=UTF-8' };
  return { body: body ?? null, contentType: null };
}

/** A ReadableStream read chunk by chunk into the request (chunked transfer encoding, as fetch sends it). */
function streamBody(stream: ReadableStream<unknown>): PreparedBody {
  const reader = stream.getReader(); // a locked or used stream throws a TypeError here, as in fetch
  const chunks: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (!(value instanceof Uint8Array)) throw new TypeError('Received non-Uint8Array chunk');
        yield value;
      }
    },
  };
  // undici leaves a stalled iterable to its owner: cancelling the reader ends the pending read.
  return { body: chunks, contentType: null, cancel: (reason) => void reader.cancel(reason).catch(() => undefined) };
}

/**
 * Every other body kind (Blob, FormData with files, URLSearchParams, ArrayBuffer, typed-array
 * views, ...) goes through the platform's own body extraction, the one fetch uses, so bytes and
 * content-type (multipart boundary, form-urlencoded charset, Blob type) are exactly fetch's.
 */
export async function prepareBody(body: unknown): Promise<PreparedBody> {
  if (isDirectBody(body)) return directBody(body);
  if (body instanceof ReadableStream) return streamBody(body);
  if (body instanceof ArrayBuffer) return { body: new Uint8Array(body), contentType: null };
  if (ArrayBuffer.isView(body)) return { body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength), contentType: null };
  const extracted = new Response(body as BodyInit);
  return { body: new Uint8Array(await extracted.arrayBuffer()), contentType: extracted.headers.get('content-type') };
}
