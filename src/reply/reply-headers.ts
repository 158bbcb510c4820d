/**
 * The headers of the gateway's own replies: a small Headers (same methods, same rules) without the
 * platform's per-call conversions, which on Node cost more per request than all of these replies'
 * header work. Names are checked and lowercased, values checked and trimmed as Headers does;
 * entries are kept sorted by name (the order Headers iterates in), each Set-Cookie on its own.
 * `toResponse` hands them to a Response, which copies them into a real Headers.
 */

/** A header name as Headers takes it (an HTTP token); lowercase ones need no lowercasing. */
const LOWER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** In a value Headers keeps as it is (bytes only, no NUL, CR or LF), none of these. */
const ODD_IN_VALUE = /[\0\n\r\u0100-\uffff]/;
const BYTES = /^[\0-\u00ff]*$/;
const FORBIDDEN_IN_VALUE = /[\0\n\r]/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/** The names the gateway itself sets, known to be valid: a lookup instead of a regex (read only). */
const KNOWN_NAMES: ReadonlySet<string> = new Set([
  'allow',
  'cache-control',
  'connection',
  'content-disposition',
  'content-encoding',
  'content-length',
  'content-type',
  'request-id',
  'retry-after',
  'transfer-encoding',
  'x-accel-buffering',
  'x-modelgate-attempts',
  'x-modelgate-cache',
  'x-modelgate-cost-usd',
  'x-modelgate-model',
  'x-modelgate-provider',
  'x-modelgate-warnings',
  'x-ratelimit-limit-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-requests',
  'x-ratelimit-reset-tokens',
  'x-trace-id',
]);

function nameOf(name: string, method: string): string {
  const n = typeof name === 'string' ? name : String(name);
  if (KNOWN_NAMES.has(n) || LOWER_TOKEN.test(n)) return n;
  if (!TOKEN.test(n)) throw new TypeError(`Headers.${method}: "${n}" is an invalid header name.`);
  return n.toLowerCase();
}

function valueOf(value: string, method: string): string {
  const v = typeof value === 'string' ? value : String(value);
  // Taken as it is when it starts and ends in a visible character (or is empty) and has nothing odd.
  const n = v.length;
  if (n === 0 || (v.charCodeAt(0) > 32 && v.charCodeAt(n - 1) > 32 && !ODD_IN_VALUE.test(v))) return v;
  if (!BYTES.test(v)) throw new TypeError(`Headers.${method}: "${v}" is not a ByteString.`);
  const trimmed = v.replace(EDGE_WHITESPACE, '');
  if (FORBIDDEN_IN_VALUE.test(trimmed)) throw new TypeError(`Headers.${method}: "${trimmed}" is an invalid header value.`);
  return trimmed;
}

function argumentsRequired(method: string, needed: number, found: number): void {
  if (found < needed) throw new TypeError(`Headers.${method}: ${needed} argument${needed > 1 ? 's' : ''} required, but ${found === 0 ? 'only 0' : `only ${found}`} present.`);
}

/**
 * Kept hand-written by measurement (issue 22: a loss over 5%). bench/micro.ts, CPU µs/request,
 * medians of 5 rounds x 20000 at 64 in flight, `taskset -c 1`, 11 interleaved pairs on the shared
 * 2-core machine (load ~4), 2026-11-27: `sync` this class 29.3 vs the platform Headers 35.5
 * (median of per-pair ratios 1.064, +6.4%); `stream` 52.7 vs 53.0 (ratio 1.015). The micro
 * benchmark leaves out the node bridge copying these headers into writeHead, where the platform
 * Headers costs more still.
 */
export class ReplyHeaders implements Headers {
  /** Lowercase names, sorted (Set-Cookie once per cookie, in the order they came), and their values. */
  readonly #names: string[] = [];
  readonly #values: string[] = [];

  constructor(init?: HeadersInit) {
    if (init === undefined || init === null) return;
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError('Headers constructor: expected name/value pair to be length 2.');
        this.append(pair[0] as string, pair[1] as string);
      }
      return;
    }
    if (typeof init !== 'object') throw new TypeError('Headers constructor: init must be a record or a sequence of pairs.');
    for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name] as string);
  }

  /** Index of the first entry named `name`, or -1. */
  #find(name: string): number {
    const names = this.#names;
    for (let i = 0; i < names.length; i++) if (names[i] === name) return i;
    return -1;
  }

  /** Adds an entry after every entry with a name that sorts before or equal to `name`. */
  #insert(name: string, value: string): void {
    const names = this.#names;
    const values = this.#values;
    let i = names.length;
    names.push(name);
    values.push(value);
    for (; i > 0 && (names[i - 1] as string) > name; i--) {
      names[i] = names[i - 1] as string;
      values[i] = values[i - 1] as string;
    }
    names[i] = name;
    values[i] = value;
  }

  append(name: string, value: string): void {
    argumentsRequired('append', 2, arguments.length);
    const n = nameOf(name, 'append');
    const v = valueOf(value, 'append');
    const at = n === 'set-cookie' ? -1 : this.#find(n);
    if (at !== -1) {
      this.#values[at] = `${this.#values[at] as string}, ${v}`;
      return;
    }
    this.#insert(n, v);
  }

  set(name: string, value: string): void {
    argumentsRequired('set', 2, arguments.length);
    const n = nameOf(name, 'set');
    const v = valueOf(value, 'set');
    const at = this.#find(n);
    if (at === -1) {
      this.#insert(n, v);
      return;
    }
    this.#values[at] = v;
    // More than one only for Set-Cookie: set() leaves one.
    let extra = 0;
    while (this.#names[at + 1 + extra] === n) extra++;
    if (extra) {
      this.#names.splice(at + 1, extra);
      this.#values.splice(at + 1, extra);
    }
  }

  get(name: string): string | null {
    argumentsRequired('get', 1, arguments.length);
    const n = nameOf(name, 'get');
    const at = this.#find(n);
    if (at === -1) return null;
    let value = this.#values[at] as string;
    for (let i = at + 1; this.#names[i] === n; i++) value += `, ${this.#values[i] as string}`;
    return value;
  }

  has(name: string): boolean {
    argumentsRequired('has', 1, arguments.length);
    return this.#find(nameOf(name, 'has')) !== -1;
  }

  delete(name: string): void {
    argumentsRequired('delete', 1, arguments.length);
    const n = nameOf(name, 'delete');
    const at = this.#find(n);
    if (at === -1) return;
    let count = 1;
    while (this.#names[at + count] === n) count++;
    this.#names.splice(at, count);
    this.#values.splice(at, count);
  }

  getSetCookie(): string[] {
    const out: string[] = [];
    const names = this.#names;
    for (let i = 0; i < names.length; i++) if (names[i] === 'set-cookie') out.push(this.#values[i] as string);
    return out;
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError("Headers.forEach: Argument 1 could not be converted to: Function.");
    // Over a copy, as Headers does: the callback may change the headers.
    const names = this.#names.slice();
    const values = this.#values.slice();
    for (let i = 0; i < names.length; i++) callback.call(thisArg, values[i] as string, names[i] as string, this);
  }

  /** [name, value] pairs as Headers iterates them: sorted by name, every Set-Cookie on its own. */
  #pairs(): Array<[string, string]> {
    const names = this.#names;
    const out: Array<[string, string]> = [];
    for (let i = 0; i < names.length; i++) out.push([names[i] as string, this.#values[i] as string]);
    return out;
  }

  entries(): HeadersIterator<[string, string]> {
    return iterator(this.#pairs(), (p) => p);
  }

  keys(): HeadersIterator<string> {
    return iterator(this.#pairs(), (p) => p[0]);
  }

  values(): HeadersIterator<string> {
    return iterator(this.#pairs(), (p) => p[1]);
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

function iterator<T>(pairs: Array<[string, string]>, pick: (pair: [string, string]) => T): HeadersIterator<T> {
  let i = 0;
  const it = {
    next(): IteratorResult<T, undefined> {
      if (i >= pairs.length) return { done: true, value: undefined };
      return { done: false, value: pick(pairs[i++] as [string, string]) };
    },
    [Symbol.iterator]() {
      return it;
    },
  };
  return it as HeadersIterator<T>;
}
