import { requestURL } from './guards.js';

const URL_CACHE_MAX = 256;

/**
 * A reader of request URLs that keeps the parsed ones by their text (query-less ones only, so no
 * key in a query is kept): most requests go to a few URLs, and parsing one costs more than looking
 * it up. One per gateway; the URLs it returns are shared by that gateway's requests, so read only.
 */
export function requestURLCache(): (raw: string) => Readonly<URL> | undefined {
  const urls = new Map<string, URL>();
  return (raw) => {
    let url = urls.get(raw);
    if (url) return url;
    url = requestURL(raw);
    if (url && raw.length <= 512 && !raw.includes('?')) {
      if (urls.size >= URL_CACHE_MAX) urls.clear();
      urls.set(raw, url);
    }
    return url;
  };
}
