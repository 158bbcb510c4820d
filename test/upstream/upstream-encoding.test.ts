import { describe, expect, it } from 'vitest';
import { decodeOpenAIChatRequest } from '../../src/protocols/openai-chat/client/decode-request.js';
import { encodeOpenAIChatRequest, isReasoningModel } from '../../src/protocols/openai-chat/upstream/encode-request.js';

describe('OpenAI upstream encoding of reasoning settings', () => {
  it('recognises reasoning model families by name', () => {
    expect(['o3', 'o4-mini', 'gpt-5.1', 'openai/gpt-oss-120b', 'deepseek-reasoner', 'qwen3-thinking'].map(isReasoningModel)).toEqual([true, true, true, true, true, true]);
    expect(['gpt-4o', 'gpt-4.1-mini', 'qwen3-8b', 'llama-3.1-70b'].map(isReasoningModel)).toEqual([false, false, false, false]);
  });

  it('sends reasoning_effort to reasoning models and drops it with a warning for others', () => {
    const ir = decodeOpenAIChatRequest({ model: 'x', reasoning_effort: 'high', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }] });
    const toO3 = encodeOpenAIChatRequest(ir, 'o3', { maxTokensField: 'max_completion_tokens' });
    expect(toO3.body.reasoning_effort).toBe('high');
    expect(toO3.body.max_completion_tokens).toBe(4096);
    const toGpt4o = encodeOpenAIChatRequest(ir, 'gpt-4o', { maxTokensField: 'max_completion_tokens' });
    expect(toGpt4o.body).not.toHaveProperty('reasoning_effort');
    expect(toGpt4o.warnings).toEqual([
      { setting: 'reasoning', action: 'dropped (the model takes no reasoning effort)', message: "The model 'gpt-4o' takes no reasoning effort (set reasoning: true on the model if it does); the reasoning setting was not sent." },
    ]);
    const compatible = encodeOpenAIChatRequest(ir, 'qwen3-8b', { maxTokensField: 'max_tokens' });
    expect(compatible.body.max_tokens).toBe(4096);
    expect(compatible.body).not.toHaveProperty('max_completion_tokens');
    // No cap from the client, none sent: the upstream's own default applies.
    const uncapped = decodeOpenAIChatRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }] });
    expect(encodeOpenAIChatRequest(uncapped, 'qwen3-8b', { maxTokensField: 'max_tokens' }).body).not.toHaveProperty('max_tokens');
  });

  it("the model's configured reasoning wins over the name", () => {
    const ir = decodeOpenAIChatRequest({ model: 'x', reasoning_effort: 'low', messages: [{ role: 'user', content: 'hi' }] });
    expect(encodeOpenAIChatRequest(ir, 'qwen3-8b', { reasoning: true }).body.reasoning_effort).toBe('low');
    const off = encodeOpenAIChatRequest(ir, 'o3', { reasoning: false });
    expect(off.body).not.toHaveProperty('reasoning_effort');
    expect(off.warnings[0]?.message).toContain('is configured without reasoning (reasoning: false)');
  });
});

describe('Gemini upstream thinking budget', () => {
  it('clamps a budget above what the model accepts (Claude Code asks for 31999)', async () => {
    const { encodeGeminiRequest } = await import('../../src/protocols/gemini/upstream/encode-request.js');
    const ir = { model: 'x', stream: false, messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }], reasoning: { budgetTokens: 31_999 } };
    const flash = encodeGeminiRequest(ir, 'gemini-2.5-flash').body as { generationConfig: { thinkingConfig: { thinkingBudget: number } } };
    expect(flash.generationConfig.thinkingConfig.thinkingBudget).toBe(24_576);
    const pro = encodeGeminiRequest(ir, 'gemini-2.5-pro').body as { generationConfig: { thinkingConfig: { thinkingBudget: number } } };
    expect(pro.generationConfig.thinkingConfig.thinkingBudget).toBe(31_999);
  });
});
