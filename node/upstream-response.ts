/**
 * Node-only: the answer of the undici upstream client as a Fetch `Response` (it is
 * `instanceof Response`) that builds no Web stream unless one is asked for. `text()`, `json()`,
 * `arrayBuffer()` and `bytes()` take the bytes straight from the HTTP parser; `body` builds the
 * ReadableStream on first access (a streamed answer), fed with backpressure; anything else
 * (`clone()`, `blob()`, ...) works on a real Response built from that stream. On Node a
 * ReadableStream plus a Response per call cost more than reading a JSON answer itself.
 */

import type { BodyReader, DirectBodyResponse } from '../src/upstream/direct-body.js';

/** Bytes held before the socket is paused while nobody reads the body yet. */
const HOLD_BYTES = 64 * 1024;

/**
 * Most bytes an answer read whole (a JSON answer, an error body) may hold: past it the call fails
 * (a 502) instead of growing the process without bound (a faulty upstream once sent 600 MB). A
 * stream read as it arrives holds little and is not limited by it.
 */
export const MAX_HELD_BYTES = 128 * 1024 * 1024;

/** An answer past MAX_HELD_BYTES (or the configured bound). */
export class UpstreamAnswerTooLarge extends Error {
  readonly code = 'MODELGATE_UPSTREAM_TOO_LARGE';
  constructor(limit: number) {
    super(`The upstream's answer is larger than ${limit} bytes.`);
  }
}

const decoder = new TextDecoder();

type ReadWaiter = { resolve: (r: ReadableStreamReadResult<Uint8Array>) => void; reject: (e: unknown) => void };

/**
 * One answer's body as it arrives: buffered until a reader comes, then handed to it whole
 * (`all()`), as a stream (`stream()`), or chunk by chunk without a Web stream (`reader()`, what
 * the stream pump uses).
 */
export class UpstreamBody {
  #chunks: Buffer[] = [];
  #size = 0;
  #ended = false;
  #failed: { error: unknown } | undefined;
  #whole: { resolve: (b: Buffer) => void; reject: (e: unknown) => void } | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #stream: ReadableStream<Uint8Array> | undefined;
  /** `reader()` was taken; `#waiter` is its pending read. */
  #direct = false;
  #waiter: ReadWaiter | undefined;
  #used = false;
  #paused = false;
  #scheduled = false;
  #resume: () => void;
  #cancel: (reason: unknown) => void;

  #maxHeld: number;

  /** `resume` restarts a paused socket; `cancel` stops the call (a stream reader cancelled); `maxHeld`: see MAX_HELD_BYTES. */
  constructor(resume: () => void, cancel: (reason: unknown) => void, maxHeld = MAX_HELD_BYTES) {
    this.#resume = resume;
    this.#cancel = cancel;
    this.#maxHeld = maxHeld;
  }

  /** A chunk from the parser; false: pause the socket until the reader asks for more. */
  push(chunk: Buffer): boolean {
    if (this.#ended || this.#failed) return true;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size > this.#maxHeld) {
      const err = new UpstreamAnswerTooLarge(this.#maxHeld);
      this.fail(err);
      this.#cancel(err);
      return true;
    }
    if (this.#direct) {
      // Chunks that arrive in the same tick go to the pending read together.
      if (this.#waiter && !this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#flushRead());
      }
      return this.#waiter || this.#size < HOLD_BYTES ? true : this.#pause();
    }
    if (this.#controller) {
      // Chunks that arrive in the same tick are enqueued together.
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#flush());
      }
      if ((this.#controller.desiredSize ?? 1) <= 0) return this.#pause();
      return true;
    }
    if (this.#whole || this.#size < HOLD_BYTES) return true;
    return this.#pause();
  }

  end(): void {
    if (this.#ended || this.#failed) return;
    this.#ended = true;
    if (this.#direct) {
      // With bytes still held, the scheduled flush hands them over; the next read sees the end.
      if (this.#waiter && this.#size === 0) this.#settleRead({ done: true, value: undefined });
    } else if (this.#controller) {
      this.#flush();
      this.#controller.close();
    } else if (this.#whole) this.#whole.resolve(this.#take());
  }

  fail(error: unknown): void {
    if (this.#ended || this.#failed) return;
    this.#failed = { error };
    this.#chunks = [];
    this.#size = 0;
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter.reject(error);
    } else if (this.#controller) this.#controller.error(error);
    else if (this.#whole) this.#whole.reject(error);
  }

  /** The socket is paused until the reader asks for more. */
  get paused(): boolean {
    return this.#paused;
  }

  get used(): boolean {
    return this.#used;
  }

  /** The whole body (once). */
  all(): Promise<Buffer> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    if (this.#failed) return Promise.reject(this.#failed.error);
    if (this.#ended) return Promise.resolve(this.#take());
    return new Promise<Buffer>((resolve, reject) => {
      this.#whole = { resolve, reject };
      this.#unpause();
    });
  }

  /** The body as a ReadableStream (the same one on every call). */
  stream(): ReadableStream<Uint8Array> {
    if (this.#stream) return this.#stream;
    if (this.#used) {
      // Read whole already: an empty, used-looking stream, as a consumed Response's body is.
      this.#stream = new ReadableStream({ start: (c) => c.close() });
      return this.#stream;
    }
    this.#stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        if (this.#size) this.#flush();
        if (this.#failed) controller.error(this.#failed.error);
        else if (this.#ended) controller.close();
      },
      pull: () => {
        this.#used = true;
        this.#unpause();
      },
      cancel: (reason) => {
        this.#ended = true;
        this.#chunks = [];
        this.#cancel(reason);
      },
    });
    return this.#stream;
  }

  /**
   * The body chunk by chunk, as a ReadableStreamDefaultReader would give it, without building a
   * Web stream (undefined once the body was taken another way). Cancelling it before the end
   * stops the call.
   */
  reader(): BodyReader | undefined {
    if (this.#used || this.#stream) return undefined;
    this.#used = true;
    this.#direct = true;
    return {
      // createUndiciFetch fails the body when its call is aborted (also through its abort hook).
      followsAbort: true,
      read: () => this.#read(),
      cancel: (reason) => {
        this.#cancelRead(reason);
        return Promise.resolve();
      },
    };
  }

  #read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (this.#failed) return Promise.reject(this.#failed.error);
    if (this.#waiter) return Promise.reject(new TypeError('A read is already pending.'));
    if (this.#size) {
      const value = this.#take();
      this.#unpause();
      return Promise.resolve({ done: false, value });
    }
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
      this.#unpause();
    });
  }

  #flushRead(): void {
    this.#scheduled = false;
    if (this.#size) this.#settleRead({ done: false, value: this.#take() });
  }

  #settleRead(result: ReadableStreamReadResult<Uint8Array>): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve(result);
  }

  #cancelRead(reason: unknown): void {
    if (this.#ended || this.#failed) return;
    this.#ended = true;
    this.#chunks = [];
    this.#size = 0;
    this.#settleRead({ done: true, value: undefined });
    this.#cancel(reason);
  }

  #flush(): void {
    this.#scheduled = false;
    if (!this.#controller || this.#size === 0) return;
    try {
      this.#controller.enqueue(this.#take());
    } catch {
      // closed or errored meanwhile
    }
  }

  #take(): Buffer {
    const out = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [];
    this.#size = 0;
    return out;
  }

  #pause(): false {
    this.#paused = true;
    return false;
  }

  #unpause(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#resume();
  }
}

const asBytes = (b: Buffer): Uint8Array<ArrayBuffer> => new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.byteLength);

/**
 * The Response of one upstream answer.
 *
 * Kept hand-written by measurement (issue 22: a loss over 5%). bench/micro.ts, CPU µs/request,
 * medians of 5 rounds x 20000 at 64 in flight, `taskset -c 1`, 4 interleaved pairs on the shared
 * 2-core machine, 2026-11-27, against `new Response(body.stream(), { status, headers })` per
 * answer: `sync` 31.4 vs 62.5 (median of per-pair ratios 1.97, +97%); `stream` 51.8 vs 99.2
 * (ratio 1.94, +94%).
 */
class UpstreamResponse {
  #status: number;
  #pairs: Array<[string, string]>;
  #headers: Headers | undefined;
  #body: UpstreamBody | null;
  #real: Response | undefined;

  constructor(status: number, pairs: Array<[string, string]>, body: UpstreamBody | null) {
    this.#status = status;
    this.#pairs = pairs;
    this.#body = body;
  }

  get status(): number {
    return this.#status;
  }

  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }

  get statusText(): string {
    return '';
  }

  get type(): ResponseType {
    return 'default';
  }

  get redirected(): boolean {
    return false;
  }

  get headers(): Headers {
    this.#headers ??= new Headers(this.#pairs);
    return this.#headers;
  }

  /** `headers.get(name)` for a lower-case name, read from the answer's own list (src/upstream/direct-body.ts). */
  directHeader(name: string): string | null {
    if (this.#headers) return this.#headers.get(name);
    let value: string | null = null;
    for (const [k, v] of this.#pairs) if (k === name) value = value === null ? v : `${value}, ${v}`;
    return value;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body ? this.#body.stream() : null;
  }

  /** The body without a Web stream, for the stream pump (src/upstream/direct-body.ts). */
  directBodyReader(): BodyReader | undefined {
    return this.#body?.reader();
  }

  get bodyUsed(): boolean {
    return this.#body?.used ?? false;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (!this.#body) return new Uint8Array(0);
    return asBytes(await this.#body.all());
  }

  async text(): Promise<string> {
    if (!this.#body) return '';
    return decoder.decode(await this.#body.all());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** A real Response over the same body (for the members not written out above). */
  real(): Response {
    this.#real ??= new Response(this.body, { status: this.#status, headers: this.headers });
    return this.#real;
  }
}

for (const key of Reflect.ownKeys(Response.prototype)) {
  if (key === 'constructor' || Object.prototype.hasOwnProperty.call(UpstreamResponse.prototype, key)) continue;
  const desc = Object.getOwnPropertyDescriptor(Response.prototype, key) as PropertyDescriptor;
  if (desc.get) {
    Object.defineProperty(UpstreamResponse.prototype, key, {
      configurable: true,
      get(this: UpstreamResponse) {
        return Reflect.get(this.real(), key);
      },
    });
  } else if (typeof desc.value === 'function') {
    Object.defineProperty(UpstreamResponse.prototype, key, {
      configurable: true,
      writable: true,
      value(this: UpstreamResponse, ...args: unknown[]) {
        const real = this.real() as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
        return (real[key] as (...a: unknown[]) => unknown).apply(real, args);
      },
    });
  }
}
Object.setPrototypeOf(UpstreamResponse.prototype, Response.prototype);

/** The Response for an answer; `body` null for HEAD and null-body statuses. */
export function upstreamResponse(status: number, pairs: Array<[string, string]>, body: UpstreamBody | null): DirectBodyResponse {
  return new UpstreamResponse(status, pairs, body) as unknown as DirectBodyResponse;
}
