/**
 * extractToken reads `Authorization: Bearer <token>` without its regex when the header is in the
 * common form; on random header values it must answer what the regex answers (token or 401).
 */
import { describe, expect, it } from 'vitest';
import { extractToken } from '../../src/auth/extract-token.js';
import { GatewayError } from '../../src/core/errors.js';
import { seededRandom } from '../helpers/seeded-random.js';

function viaRegex(auth: string): string {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth.trim());
  if (!m) throw new GatewayError('authentication', 'Malformed Authorization header; expected "Bearer <key>".', { detail: 'invalid_api_key' });
  return m[1] as string;
}

function outcome(read: () => string | undefined): unknown {
  try {
    return { token: read() };
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return { error: err.message, detail: err.detail };
  }
}

const pieces = ['Bearer', 'bearer', 'BEARER', 'Basic', ' ', '  ', '\t', '\u00a0', '\u2028', '\ufeff', 'sk-abc', 'tok', '=', 'é', '🔑', '', 'Bearer ', 'x y'];

describe('extractToken', () => {
  it('reads Authorization as the regex does, on random values', () => {
    const rand = seededRandom(21);
    const url = new URL('http://localhost/v1/chat/completions');
    let tokens = 0;
    for (let i = 0; i < 20000; i++) {
      const n = 1 + Math.floor(rand() * 5);
      let auth = i % 2 === 0 ? 'Bearer ' : '';
      for (let k = 0; k < n; k++) auth += pieces[Math.floor(rand() * pieces.length)];
      const request = { headers: { get: (name: string) => (name === 'authorization' ? auth : null) } } as unknown as Request;
      const expected = outcome(() => viaRegex(auth));
      expect(outcome(() => extractToken(request, url)), JSON.stringify(auth)).toEqual(expected);
      if ('token' in (expected as object)) tokens++;
    }
    expect(tokens).toBeGreaterThan(2000);
    expect(tokens).toBeLessThan(18000);
  });
});
