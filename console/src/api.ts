/**
 * The console's only way out: the admin API, by a URL relative to the page (`../admin/v1/`), so it
 * works under any prefix the host mounted the gateway at. The session cookie rides along (same
 * origin); every change carries the session's CSRF token, kept in memory only (never storage).
 */
export const API_BASE = new URL('../admin/v1/', location.href);

export interface Session {
  actor: string;
  access: 'read' | 'write';
  via: 'session' | 'key' | 'host';
  csrfToken: string | null;
  expiresAt: string | null;
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
let onSignedOut: () => void = () => undefined;

export function setSession(session: Session | null): void {
  csrfToken = session?.csrfToken ?? null;
}

/** Called when the API answers 401 (the session ended): the app shows the sign-in form. */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback;
}

export type Query = Record<string, string | number | undefined | null>;

/** An admin API URL with the query's non-empty values. */
export function apiUrl(path: string, query: Query = {}): string {
  const url = new URL(path.replace(/^\//, ''), API_BASE);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  return url.toString();
}

export async function api<T>(path: string, init: { method?: string; body?: unknown; query?: Query; headers?: Record<string, string> } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...(init.headers ?? {}) };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(apiUrl(path, init.query), {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const err = (json as { error?: { message?: string; param?: string | null } } | undefined)?.error;
    if (res.status === 401 && path !== '/session') onSignedOut();
    throw new ApiError(res.status, err?.message ?? `The admin API answered ${res.status}.`, err?.param ?? null);
  }
  return json as T;
}

/** An error's message for the page. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
