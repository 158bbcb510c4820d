/** The gateway's default ids (trace ids, answer ids): 128 random bits as 32 hex digits, never repeated, also across refills of the random pool. */
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.js';

describe('default request ids', () => {
  it('are 32 lowercase hex digits and distinct over many requests', async () => {
    const gateway = createGateway({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'm', provider: 'mock' }], keys: [{ id: 'k', key: 'mg-ids-key-0001' }] }, { env: {} });
    const ids = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const res = await gateway.handle(new Request('http://gw.test/v1/models'));
      const id = res.headers.get('x-trace-id') ?? '';
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(600);
  });
});
