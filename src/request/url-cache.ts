import { requestURL } from './guards.js';

/**
 * Parsed request URLs by their text (query-less ones only, so no key in a query is kept): most
 * requests go to a few URLs, and parsing one costs more than looking it up. Shared, so read only.
 */
const urlCache = new Map<string, URL>();
const URL_CACHE_MAX = 256;

export function cachedRequestURL(raw: string): URL | undefined {
  let url = urlCache.get(raw);
  if (url) return url;
  url = requestURL(raw);
  if (url && raw.length <= 512 && !raw.includes('?')) {
    if (urlCache.size >= URL_CACHE_MAX) urlCache.clear();
    urlCache.set(raw, url);
  }
  return url;
}
