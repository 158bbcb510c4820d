/** cachedRequestURL answers as requestURL does, parsing each query-less URL once. */
import { describe, expect, it } from 'vitest';
import { requestURL } from '../../src/request/guards.js';
import { requestURLCache } from '../../src/request/url-cache.js';

const cachedRequestURL = requestURLCache();

const RAWS = ['/v1/chat/completions', 'http://localhost/v1/models', '/v1/models?all=true', '/v1/chat/%2e%2e/models', 'http://[bad', '/v1beta/models/g:generateContent?alt=sse&key=k', `/v1/${'x'.repeat(600)}`, '//x/y', 'http://localhost/a#frag'];

describe('cachedRequestURL', () => {
  it('gives what requestURL gives, also once cached and after the cache fills up', () => {
    for (let round = 0; round < 3; round++) {
      for (const raw of RAWS) expect(cachedRequestURL(raw)?.href, raw).toBe(requestURL(raw)?.href);
      // More distinct URLs than the cache holds.
      for (let i = 0; i < 300; i++) expect(cachedRequestURL(`/v1/models/m${i}`)?.pathname).toBe(`/v1/models/m${i}`);
    }
  });

  it('parses a query-less URL once, and never keeps one with a query or a long one', () => {
    expect(cachedRequestURL('/v1/chat/completions')).toBe(cachedRequestURL('/v1/chat/completions'));
    expect(cachedRequestURL('/v1/models?key=secret-key')).not.toBe(cachedRequestURL('/v1/models?key=secret-key'));
    const long = `/v1/${'y'.repeat(600)}`;
    expect(cachedRequestURL(long)).not.toBe(cachedRequestURL(long));
  });
});
