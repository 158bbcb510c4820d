/**
 * The endpoint validates a body once and hands the result to the decoder explicitly (the call's
 * `validated` field, the decode context's `validated`): nothing is remembered on the body object,
 * and a decoder given no validated body still validates it itself, with the same 400.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { anthropicMessagesClient } from '../../src/protocols/anthropic-messages/index.js';
import { decodeOpenAIChatRequest, validateChatRequest } from '../../src/protocols/openai-chat/client/decode-request.js';
import { openAIChatClient } from '../../src/protocols/openai-chat/index.js';
import type { ChatRequest } from '../../src/protocols/openai-chat/openai-chat-api.js';

const make = () => ({ model: 'gpt-4o', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], max_tokens: 5 });

describe('the validated body is passed, not memoised', () => {
  it('validation leaves the body object as it was', () => {
    const body: Record<string, unknown> = make();
    validateChatRequest(body);
    expect(Object.getOwnPropertySymbols(body)).toEqual([]);
    expect(Object.getOwnPropertyNames(body)).toEqual(['model', 'messages', 'max_tokens']);
  });

  it('a 400 naming the field, every time', () => {
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
    expect(() => openAIChatClient.decodeRequest(body, { model: 'm', stream: false })).toThrow(/messages\[0\]\.role/);
  });

  it('the decoder reads the validated body it is given, and gives the same IR as validating itself', () => {
    const body = make();
    const validated = validateChatRequest(body);
    expect(decodeOpenAIChatRequest(body, validated)).toEqual(decodeOpenAIChatRequest(make()));
    // It really uses what it is handed: a validated body that says otherwise wins over the raw one.
    const other: ChatRequest = { ...validated, max_tokens: 7 };
    expect(openAIChatClient.decodeRequest(body, { model: 'gpt-4o', stream: false, validated: other }).maxTokens).toBe(7);
    expect(openAIChatClient.decodeRequest(body, { model: 'gpt-4o', stream: false }).maxTokens).toBe(5);
  });

  it('the Anthropic client side likewise', () => {
    const body = { model: 'claude', max_tokens: 9, messages: [{ role: 'user', content: 'hi' }] };
    expect(anthropicMessagesClient.decodeRequest(body, { model: 'claude', stream: false }).maxTokens).toBe(9);
    expect(() => anthropicMessagesClient.decodeRequest({ model: 'claude', messages: [] }, { model: 'claude', stream: false })).toThrow(GatewayError);
  });
});
