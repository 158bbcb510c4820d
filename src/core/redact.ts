/**
 * The one scrubber of credentials in anything that may reach a caller, a log line or a hook:
 *
 * - error texts (`redact`, `scrubError`): the configured secrets, plus anything shaped like a
 *   credential (sk-..., AIza..., Bearer ..., api_key=...), since an upstream may echo a key the
 *   gateway does not know (a header another proxy added). Messages are also cut to a bounded
 *   length, so echoed input cannot blow them up.
 * - relayed content (`scrubContent`, `createContentScrubber`, `scrubbedStream`): only the
 *   configured secrets, replaced exactly, so model output that merely looks like a key survives.
 *   Streams keep back a tail that could be the start of a secret split across two chunks.
 *
 * A secret that a model spells out over several stream events (one token each) is not caught:
 * the events' framing separates its pieces on the wire.
 */
import { GatewayError, toGatewayError } from './errors.js';
import { quoteInput } from './quote-input.js';

const REDACTED = '[redacted]';

const PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g,
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  // An Authorization value keeps its scheme (Bearer, Basic, ...): the credential after it is what goes.
  /((?:x-api-key|x-goog-api-key|api[_-]?key|authorization)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|apikey)\s+)?)(?!(?:bearer|basic|token|digest|apikey)\s)[^\s"',}]{6,}/gi,
  /([?&]key=)[^&\s"']+/g,
];

/** Shorter secrets are scrubbed from error texts only: in content, a 4-letter key would cut words out of answers. */
const MIN_CONTENT_SECRET = 8;
const MIN_ERROR_SECRET = 4;
/** Error messages (to callers, task records and hooks) are cut to this many characters. */
const MAX_ERROR_MESSAGE_CHARS = 1000;
const MAX_PARAM_CHARS = 200;

function replaceSecrets(text: string, secrets: Iterable<string>, minLength: number): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= minLength && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** A credential as vendors quote it masked: `sk-*****6789`, `UPKEYopenaiS...Tzz9`, `sk-…abcd`. */
const MASKED = /[A-Za-z0-9_-]*(?:\*{2,}|\.{3}|\u2026)[A-Za-z0-9_-]*/g;
const MIN_MASKED_SECRET = 12;

/** Masked quotes of a known secret (its first or last four characters around the mask) go too. */
function replaceMasked(text: string, secrets: Iterable<string>): string {
  if (!text.includes('*') && !text.includes('...') && !text.includes('\u2026')) return text;
  const ends: Array<[string, string]> = [];
  for (const s of secrets) if (s.length >= MIN_MASKED_SECRET) ends.push([s.slice(0, 4), s.slice(-4)]);
  if (!ends.length) return text;
  return text.replace(MASKED, (m) => {
    const at = m.search(/\*|\.{3}|\u2026/);
    const head = m.slice(0, at);
    const tail = m.slice(at).replace(/^(?:\*+|\.{3}|\u2026)/, '');
    return ends.some(([first, last]) => (tail.length >= 4 && tail.endsWith(last)) || (head.length >= 4 && head.startsWith(first))) ? REDACTED : m;
  });
}

/** Credentials out of an error text: the known secrets (whole or quoted masked) and anything shaped like a key. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  const known = Array.isArray(secrets) ? (secrets as readonly string[]) : [...secrets];
  let out = replaceMasked(replaceSecrets(text, known, MIN_ERROR_SECRET), known);
  for (const re of PATTERNS) {
    out = out.replace(re, (_m, prefix: unknown) => (typeof prefix === 'string' && prefix.length > 0 && !/^(sk|pk|rk)$/.test(prefix) ? `${prefix}${REDACTED}` : REDACTED));
  }
  return out;
}

/**
 * Any thrown value as a GatewayError that is safe to show and store: credentials redacted,
 * message and param cut to a bounded length, status and codes kept.
 */
export function scrubError(thrown: unknown, secrets: Iterable<string>): GatewayError {
  const err = toGatewayError(thrown);
  const message = quoteInput(redact(err.message, secrets), MAX_ERROR_MESSAGE_CHARS);
  const param = err.param === null ? null : quoteInput(redact(err.param, secrets), MAX_PARAM_CHARS);
  if (message === err.message && param === err.param) return err;
  return new GatewayError(err.code, message, {
    status: err.status,
    param,
    ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
    ...(err.detail !== undefined ? { detail: err.detail } : {}),
  });
}

/** Known secrets out of a complete body relayed to a caller. */
export function scrubContent(text: string, secrets: Iterable<string>): string {
  return replaceSecrets(text, secrets, MIN_CONTENT_SECRET);
}

export interface ContentScrubber {
  /** Scrubbed text to send now (may be shorter than what came in: see `end`). */
  push(chunk: string): string;
  /** What was kept back because it could have been the start of a secret. */
  end(): string;
}

/** Length of the longest end of `text` that is the start of some secret (and not all of it). */
function pendingSecretStart(text: string, secrets: readonly string[]): number {
  let keep = 0;
  const n = text.length;
  if (n === 0) return 0;
  const last = text.charCodeAt(n - 1);
  for (const secret of secrets) {
    // A text that ends in a character the secret does not have ends no start of it (SSE chunks end in a newline).
    if (!hasCharCode(secret, last)) continue;
    const first = secret.charCodeAt(0);
    for (let i = Math.max(0, n - secret.length + 1); i < n - keep; i++) {
      if (text.charCodeAt(i) === first && isPrefixAt(secret, text, i)) {
        keep = n - i;
        break;
      }
    }
  }
  return keep;
}

function hasCharCode(s: string, code: number): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === code) return true;
  return false;
}

/** Whether `text` from `from` to its end is the start of `secret` (no substring built). */
function isPrefixAt(secret: string, text: string, from: number): boolean {
  if (text.length - from > secret.length) return false;
  for (let j = from; j < text.length; j++) if (text.charCodeAt(j) !== secret.charCodeAt(j - from)) return false;
  return true;
}

/** Scrubs a stream of text chunks, also when a secret is split across two chunks. */
export function createContentScrubber(secrets: Iterable<string>): ContentScrubber {
  const list = [...new Set(secrets)].filter((s) => s.length >= MIN_CONTENT_SECRET);
  let carry = '';
  return {
    push(chunk) {
      if (list.length === 0) return chunk;
      const text = replaceSecrets(carry + chunk, list, MIN_CONTENT_SECRET);
      const keep = pendingSecretStart(text, list);
      carry = keep ? text.slice(text.length - keep) : '';
      return keep ? text.slice(0, text.length - keep) : text;
    },
    end() {
      const rest = carry;
      carry = '';
      return rest;
    },
  };
}

/**
 * A generator of wire text, scrubbed. Returning it (client gone) returns `source` too, so the
 * source's cleanup runs as before.
 */
export async function* scrubbedStream(source: AsyncGenerator<string>, secrets: Iterable<string>): AsyncGenerator<string> {
  const scrubber = createContentScrubber(secrets);
  for await (const chunk of source) {
    const out = scrubber.push(chunk);
    if (out) yield out;
  }
  const tail = scrubber.end();
  if (tail) yield tail;
}
