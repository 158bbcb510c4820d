/** The node bridge's lazy Request: a real Request to every reader, built only when one asks for more than method, url, signal and headers.get/has. */
import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { clientGone, FORBIDDEN_METHODS, nodeRequest } from '../../adapters/node-request.js';

const raw = { host: 'gw.test', 'content-type': 'application/json', 'x-multi': ['a', 'b'], authorization: 'Bearer k' };

describe('nodeRequest', () => {
  it('is a Request with the node request method, url, headers and signal', () => {
    const ac = new AbortController();
    const req = nodeRequest('POST', 'http://localhost/v1/chat/completions?x=1', raw, () => ac.signal);
    expect(req).toBeInstanceOf(Request);
    expect(req.method).toBe('POST');
    expect(req.url).toBe('http://localhost/v1/chat/completions?x=1');
    expect(req.signal).toBe(ac.signal);
    expect(req.headers).toBeInstanceOf(Headers);
    expect(req.headers.get('Content-Type')).toBe('application/json');
    expect(req.headers.get('x-multi')).toBe('a, b');
    expect(req.headers.get('x-none')).toBeNull();
    expect(req.headers.has('AUTHORIZATION')).toBe(true);
    expect(req.headers.has('x-none')).toBe(false);
  });

  it('works as a real Request for everything else (clone, iteration, body)', async () => {
    const req = nodeRequest('GET', 'http://localhost/v1/models', raw, () => new AbortController().signal);
    expect([...req.headers.keys()]).toEqual(['authorization', 'content-type', 'host', 'x-multi']);
    const pairs: string[] = [];
    req.headers.forEach((v, k) => pairs.push(`${k}=${v}`));
    expect(pairs).toContain('x-multi=a, b');
    const copy = req.clone();
    expect(copy.url).toBe('http://localhost/v1/models');
    expect(copy.headers.get('authorization')).toBe('Bearer k');
    expect(req.body).toBeNull();
    expect(req.redirect).toBe('follow');
    req.headers.set('x-added', '1');
    expect(req.headers.get('x-added')).toBe('1');
  });

  it('lists the methods a Fetch Request refuses', () => {
    for (const m of FORBIDDEN_METHODS) expect(() => new Request('http://localhost/', { method: m })).toThrow();
  });
});

/** A node response as clientGone sees it: its `close` event and whether the answer was sent in full. */
function fakeResponse(): EventEmitter & { writableFinished: boolean } {
  return Object.assign(new EventEmitter(), { writableFinished: false });
}

describe('clientGone', () => {
  it('builds no signal until asked, and tells listeners when the client leaves first', () => {
    const res = fakeResponse();
    const client = clientGone(res as unknown as ServerResponse);
    const heard: string[] = [];
    client.onGone(() => heard.push('a'));
    const stop = client.onGone(() => heard.push('b'));
    stop();
    const signal = client.signal();
    expect(client.signal()).toBe(signal);
    expect(signal.aborted).toBe(false);
    res.emit('close');
    expect(heard).toEqual(['a']);
    expect(signal.aborted).toBe(true);
  });

  it('after the client left: the signal is built aborted and a new listener is called at once', () => {
    const res = fakeResponse();
    const client = clientGone(res as unknown as ServerResponse);
    res.emit('close');
    expect(client.signal().aborted).toBe(true);
    let heard = 0;
    client.onGone(() => heard++);
    expect(heard).toBe(1);
  });

  it('a close after the answer was sent in full is not the client leaving', () => {
    const res = fakeResponse();
    const client = clientGone(res as unknown as ServerResponse);
    let heard = 0;
    client.onGone(() => heard++);
    res.writableFinished = true;
    res.emit('close');
    expect(heard).toBe(0);
    expect(client.signal().aborted).toBe(false);
    expect(res.listenerCount('close')).toBe(0);
  });
});
