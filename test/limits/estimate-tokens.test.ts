/**
 * One local token estimator (protocols/shared/estimate-tokens.ts) behind every count-tokens
 * endpoint and the limits' reservation: characters / 4 of what the model reads, a flat cost per
 * media part that each protocol names, ids, roles and types not counted, any depth without recursion.
 */
import { describe, expect, it } from 'vitest';
import type { IRChatRequest } from '../../src/ir/types.js';
import { estimateInputTokens as anthropicEstimate } from '../../src/protocols/anthropic-messages/client/estimate-tokens.js';
import { estimateGeminiTokens } from '../../src/protocols/gemini/client/estimate-tokens.js';
import { estimateResponsesInputTokens } from '../../src/protocols/openai-responses/client/estimate-tokens.js';
import { estimateInputTokens } from '../../src/protocols/shared/estimate-tokens.js';

const b64 = 'A'.repeat(400);

describe('the shared token estimate', () => {
  it('counts text by four characters and media flat, per protocol', () => {
    const text = 'x'.repeat(40);
    expect(anthropicEstimate({ model: 'c', system: 'sys!', messages: [{ role: 'user', content: [{ type: 'text', text }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }] }] })).toBe(11 + 1600);
    expect(estimateGeminiTokens([{ role: 'user', parts: [{ text }, { inlineData: { mimeType: 'image/png', data: b64 } }] }], { systemInstruction: { parts: [{ text: 'sys!' }] } })).toBe(11 + 258);
    const ir: IRChatRequest = {
      model: 'm',
      stream: false,
      maxTokens: 10,
      system: [{ type: 'text', text: 'sys!' }],
      messages: [{ role: 'user', content: [{ type: 'text', text }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: b64 } }] }],
    };
    expect(estimateResponsesInputTokens(ir)).toBe(11 + 1000);
  });

  it('never counts ids, roles, types or media types, and is at least 1', () => {
    expect(estimateInputTokens({ model: 'a-long-model-name', messages: [{ role: 'assistant', id: 'msg_0123456789', type: 'message' }] })).toBe(1);
    expect(estimateInputTokens({ messages: [{ content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } }] }] }, { mediaTokens: 7 })).toBe(7);
  });

  it('walks any depth without recursion', () => {
    let deep: unknown = 'abcd';
    for (let i = 0; i < 100_000; i++) deep = { v: deep };
    expect(estimateInputTokens(deep)).toBe(1);
  });
});
