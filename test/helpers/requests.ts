/**
 * Requests as clients send them, for suites that call `gateway.handle()` or a running server:
 * a JSON body with `content-type: application/json` and, when a key is given, `Authorization:
 * Bearer <key>`.
 */
export interface JsonRequestOptions {
  /** The platform key sent as `Authorization: Bearer`; none: no credential. */
  key?: string | undefined;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  method?: string;
}

function init(body: unknown, o: JsonRequestOptions): RequestInit {
  return {
    method: o.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...(o.key !== undefined ? { authorization: `Bearer ${o.key}` } : {}), ...o.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(o.signal ? { signal: o.signal } : {}),
  };
}

/** A JSON POST to `path` of an in-process gateway (origin `http://gw.test`), or to a full URL. */
export function jsonRequest(pathOrUrl: string, body: unknown, options: JsonRequestOptions = {}): Request {
  return new Request(pathOrUrl.startsWith('/') ? `http://gw.test${pathOrUrl}` : pathOrUrl, init(body, options));
}

/** The same request sent over the network with `fetch`. */
export function postJson(url: string, body: unknown, options: JsonRequestOptions = {}): Promise<Response> {
  return fetch(url, init(body, options));
}

/** The smallest chat completions body: `model` and one user message, plus `extra`. */
export function chatBody(model: string, extra: Record<string, unknown> = {}, content = 'hi'): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content }], ...extra };
}
