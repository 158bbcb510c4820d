/** parseBodyOnce: an endpoint's validation is reused by the codec that decodes the same body. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError } from '../src/errors.js';
import { decodeOpenAIChatRequest, validateChatRequest } from '../src/protocols/openai-chat/client/decode-request.js';
import { parseBodyOnce } from '../src/protocols/shared/zod-error.js';

describe('parseBodyOnce', () => {
  it('parses a body object once and returns the same result after', () => {
    let runs = 0;
    const schema = z.object({ n: z.number() }).transform((v) => {
      runs++;
      return { doubled: v.n * 2 };
    });
    const tag = Symbol('test');
    const body: Record<string, unknown> = { n: 21 };
    const first = parseBodyOnce(schema, body, tag);
    const second = parseBodyOnce(schema, body, tag);
    expect(first).toEqual({ doubled: 42 });
    expect(second).toBe(first);
    expect(runs).toBe(1);
    // Invisible to JSON and key listing.
    expect(JSON.stringify(body)).toBe('{"n":21}');
    expect(Object.keys(body)).toEqual(['n']);
    // Another object is parsed on its own.
    expect(parseBodyOnce(schema, { n: 1 }, tag)).toEqual({ doubled: 2 });
    expect(runs).toBe(2);
  });

  it('still throws the 400 naming the field, every time', () => {
    const body: Record<string, unknown> = { model: 'm', messages: [{ role: 'robot', content: 'x' }] };
    for (let i = 0; i < 2; i++) {
      try {
        validateChatRequest(body);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(GatewayError);
        expect((err as GatewayError).param).toBe('messages[0].role');
      }
    }
  });

  it('the OpenAI decoder gives the same IR whether or not the endpoint validated first', () => {
    const make = () => ({ model: 'gpt-4o', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], max_tokens: 5 });
    const validatedFirst = make();
    validateChatRequest(validatedFirst);
    expect(decodeOpenAIChatRequest(validatedFirst)).toEqual(decodeOpenAIChatRequest(make()));
  });
});
