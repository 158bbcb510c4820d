/**
 * ReplyHeaders (the headers of the gateway's own replies) behaves as the platform's Headers: the
 * same random calls on both give the same answers, the same failures and the same iteration.
 */
import { describe, expect, it } from 'vitest';
import { ReplyHeaders } from '../../src/reply/reply-headers.js';
import { Reply, toResponse } from '../../src/reply/reply.js';
import { seededRandom } from '../helpers/seeded-random.js';

const NAMES = ['content-type', 'Content-Type', 'x-trace-id', 'X-Trace-ID', 'set-cookie', 'Set-Cookie', 'a', 'b', 'z', 'x-modelgate-model', 'retry-after', 'allow', 'bad name', '', 'ü', 'x(y)', "x!#$%&'*+-.^_`|~9"];
const VALUES = ['application/json', ' padded ', '\tx\t', '\r\n v \n', '', ' ', 'a, b', 'a\nb', 'a\rb', 'a\0b', 'é', '€', 'k=v; Path=/', '  \t', 'x y', '\u00ff', '1'];

type Call = { op: string; args: unknown[] };

function randomCall(rand: () => number): Call {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const ops = ['append', 'set', 'get', 'has', 'delete', 'getSetCookie', 'entries'];
  const op = pick(ops);
  const name = rand() < 0.05 ? 42 : pick(NAMES);
  const value = rand() < 0.05 ? 7 : pick(VALUES);
  return { op, args: op === 'append' || op === 'set' ? [name, value] : op === 'getSetCookie' || op === 'entries' ? [] : [name] };
}

function run(h: Headers, call: Call): unknown {
  try {
    if (call.op === 'entries') return [...h];
    const f = (h as unknown as Record<string, (...a: unknown[]) => unknown>)[call.op] as (...a: unknown[]) => unknown;
    return { value: f.apply(h, call.args) };
  } catch (err) {
    return { threw: (err as Error).constructor.name };
  }
}

function snapshot(h: Headers): unknown {
  const forEach: string[][] = [];
  h.forEach((v, k) => forEach.push([k, v]));
  return { entries: [...h.entries()], keys: [...h.keys()], values: [...h.values()], forEach, cookies: h.getSetCookie() };
}

describe('ReplyHeaders', () => {
  it('answers random calls as Headers does', () => {
    const rand = seededRandom(4242);
    for (let round = 0; round < 400; round++) {
      const init: Record<string, string> = rand() < 0.5 ? { 'content-type': 'application/json', 'X-Init': ' v ' } : {};
      const real = new Headers(init);
      const ours = new ReplyHeaders(init);
      for (let i = 0; i < 25; i++) {
        const call = randomCall(rand);
        expect(run(ours, call), JSON.stringify(call)).toEqual(run(real, call));
      }
      expect(snapshot(ours)).toEqual(snapshot(real));
    }
  });

  it('takes what Headers takes as init, and a Response takes it', async () => {
    const pairs: [string, string][] = [
      ['Set-Cookie', 'a=1'],
      ['X-B', ' 2 '],
      ['set-cookie', 'b=2'],
      ['x-b', '3'],
    ];
    expect(snapshot(new ReplyHeaders(pairs))).toEqual(snapshot(new Headers(pairs)));
    expect(snapshot(new ReplyHeaders(new Headers(pairs)))).toEqual(snapshot(new Headers(pairs)));
    expect(snapshot(new ReplyHeaders(new ReplyHeaders(pairs)))).toEqual(snapshot(new Headers(pairs)));
    expect(() => new ReplyHeaders([['a']] as unknown as [string, string][])).toThrow(TypeError);
    const res = toResponse(new Reply(201, new ReplyHeaders(pairs), 'ok'));
    expect(res.status).toBe(201);
    expect(snapshot(res.headers)).toEqual(snapshot(toResponse(new Reply(201, new Headers(pairs), 'ok')).headers));
    expect(await res.text()).toBe('ok');
  });

  it('gives a Response the headers a Headers gives it, for every kind of body', async () => {
    const inits: [string, string][][] = [[], [['content-type', 'application/json']], [['Set-Cookie', 'a=1'], ['content-type', 'text/x'], ['set-cookie', 'b=2'], ['x-trace-id', 't']]];
    const bodies = [() => 'text', () => new Uint8Array([1, 2]), () => null, () => new ReadableStream<Uint8Array>()];
    for (const init of inits) {
      for (const body of bodies) {
        const ours = toResponse(new Reply(200, new ReplyHeaders(init), body()));
        const real = toResponse(new Reply(200, new Headers(init), body()));
        expect(snapshot(ours.headers), JSON.stringify(init)).toEqual(snapshot(real.headers));
      }
    }
  });

  it('reads as Headers to a caller', () => {
    const h = new ReplyHeaders({ a: '1' });
    expect(Object.prototype.toString.call(h)).toBe('[object Headers]');
    const seen: unknown[] = [];
    h.forEach(function (this: unknown, v, k, parent) {
      seen.push(this, v, k, parent === h);
    }, 'self');
    expect(seen).toEqual(['self', '1', 'a', true]);
    // A callback that changes the headers sees them as they were when forEach began.
    const keys: string[] = [];
    h.set('b', '2');
    h.forEach((_v, k) => {
      keys.push(k);
      h.delete('b');
      h.set('c', '3');
    });
    expect(keys).toEqual(['a', 'b']);
    expect(() => (h.set as (...a: unknown[]) => void)('x')).toThrow(TypeError);
    expect(() => (h.get as (...a: unknown[]) => void)()).toThrow(TypeError);
  });
});
