/**
 * Checks on the request line and headers that run in the router, before authentication and before
 * any body byte is read: the Host header, the body's media type and its content coding.
 */
import { GatewayError } from '../core/errors.js';
import { contentCodings } from './body.js';

/** The origin of every request URL a bridge builds: only the path and query come from the client. */
export const FIXED_ORIGIN = 'http://localhost';

/**
 * True when the path of a request target has a `.` or `..` segment, also spelled `%2e` or with a
 * backslash: the URL parser resolves them (`/v1/chat/%2e%2e/video/generations` is
 * `/v1/video/generations`), so a rule in front that matches the path as sent (a proxy ACL, an
 * Express route) would see another route than the gateway serves. Bridges refuse such targets.
 */
export function hasDotSegment(target: string): boolean {
  // Without a dot, a `%` or a backslash there is no dot segment (the common case, checked first).
  if (!/[.%\\]/.test(target)) return false;
  const path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  return path.split(/[\\/]/).some((segment) => {
    const s = segment.replace(/%2e/gi, '.');
    return s === '.' || s === '..';
  });
}

/**
 * The request URL, also when a host runtime hands over a bare path (Bun does when the Host header
 * is malformed): a path is put under FIXED_ORIGIN by concatenation, so `//x/y` stays a path.
 * Undefined when it cannot be parsed, or when a bare path has dot segments (see hasDotSegment).
 */
export function requestURL(raw: string): URL | undefined {
  if (raw.startsWith('/') && hasDotSegment(raw)) return undefined;
  try {
    return raw.startsWith('/') ? new URL(FIXED_ORIGIN + raw) : new URL(raw);
  } catch {
    return undefined;
  }
}

/** Body media types a route takes; JSON unless the route says otherwise. */
export type BodyKind = 'json' | 'multipart';

// uri-host [":" port] (RFC 9110 7.2): an IP literal or a reg-name; no "/", "?", "#", "@", "\" or space.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::\d{0,5})?$/;

/** 400 naming `host` when the Host header is present and not a host[:port]. It never picks the route. */
export function checkHost(headers: Headers): void {
  const host = headers.get('host');
  if (host !== null && !HOST.test(host)) {
    throw new GatewayError('invalid_request', 'Malformed Host header; expected host[:port].', { param: 'host' });
  }
}

/**
 * True when the request carries a body: Content-Length above 0, Transfer-Encoding, or (for a
 * Request that holds its body itself) a body stream.
 */
export function carriesBody(request: Request, hostBody: { body?: Uint8Array; readBody?: unknown }): boolean {
  if (hostBody.body) return hostBody.body.byteLength > 0;
  const length = request.headers.get('content-length');
  if (length !== null) return length.trim() !== '0';
  if (request.headers.has('transfer-encoding')) return true;
  return !hostBody.readBody && request.body !== null;
}

const JSON_TYPE = /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/;

/**
 * A body must be declared as one of the route's media types: a web page can send text/plain, form
 * or Blob bodies (no Content-Type) cross-site without a preflight, JSON it cannot. Then the content
 * coding must be one the gateway can undo. Both are 415s naming the header.
 */
export function checkBodyHeaders(headers: Headers, kinds: readonly BodyKind[]): void {
  const raw = headers.get('content-type');
  // The type nearly every client sends, without the split.
  if (raw === 'application/json' && kinds.includes('json')) {
    contentCodings(headers.get('content-encoding'));
    return;
  }
  const type = (raw ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const ok = (kinds.includes('json') && JSON_TYPE.test(type)) || (kinds.includes('multipart') && type === 'multipart/form-data');
  if (!ok) {
    const wanted = kinds.map((k) => (k === 'json' ? 'application/json' : 'multipart/form-data')).join(' or ');
    const got = raw === null ? 'no Content-Type' : `Content-Type '${raw.slice(0, 100)}'`;
    throw new GatewayError('unsupported_media_type', `Unsupported media type: the request has ${got}; send ${wanted}.`, {
      param: 'content-type',
      detail: 'unsupported_media_type',
    });
  }
  contentCodings(headers.get('content-encoding'));
}
