/** Node-only: an undici-backed fetch with a keep-alive pool sized for a gateway. */
import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchLike } from './providers/types.js';

export function createUndiciFetch(options: { connections?: number } = {}): FetchLike {
  const dispatcher = new Agent({ connections: options.connections ?? 256, keepAliveTimeout: 30_000, pipelining: 1 });
  return ((input: Request | string | URL, init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as FetchLike;
}
