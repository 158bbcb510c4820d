/**
 * What a key list shows of a secret (prefix and last4) is never enough to use or guess it: a third
 * of it at most, nothing of a short one; generated secrets keep their `mg-XXXX…XXXX` form.
 */
import { describe, expect, it } from 'vitest';
import { displayParts, newSecret } from '../../src/control/keys/key-secret.js';

describe('displayParts', () => {
  it('shows a generated secret as mg- and 4, and its last 4', async () => {
    const { secret, prefix, last4 } = await newSecret();
    expect(prefix).toBe(secret.slice(0, 7));
    expect(last4).toBe(secret.slice(-4));
  });

  it('shows at most a third of any other secret, and nothing of one under 12 characters', () => {
    for (const secret of ['mg-abcdefgh', 'abcdefghijkl', 'sk-local-123456', 'mg-config-platform-key-0001', 'x'.repeat(8), 'a-much-longer-hand-written-secret-123']) {
      const { prefix, last4 } = displayParts(secret);
      const shown = prefix.length + last4.length;
      expect(shown, secret).toBeLessThanOrEqual(Math.floor(secret.length / 3));
      if (secret.length < 12) expect(shown, secret).toBe(0);
    }
    expect(displayParts('sk-local-123456')).toEqual({ prefix: '', last4: '3456' });
    expect(displayParts('mg-config-platform-key-0001')).toEqual({ prefix: 'mg-c', last4: '0001' });
  });
});
