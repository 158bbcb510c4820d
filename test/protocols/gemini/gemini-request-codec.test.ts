/**
 * Gemini codec, request side: Gemini request -> IR (camelCase and snake_case), IR -> Gemini upstream
 * body (checked field by field and snapshotted), tool call id / thought signature round trips, and
 * the recorded Gemini CLI request translated for an OpenAI upstream.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import type { IRChatRequest } from '../../../src/ir/types.js';
import { decodeGeminiRequest } from '../../../src/protocols/gemini/client/decode-request.js';
import { decodeGeminiResponse } from '../../../src/protocols/gemini/upstream/decode-response.js';
import { encodeGeminiRequest } from '../../../src/protocols/gemini/upstream/encode-request.js';
import { SKIP_SIGNATURE } from '../../../src/protocols/gemini/upstream/tool-call-ids.js';
import { decodeOpenAIChatRequest } from '../../../src/protocols/openai-chat/client/decode-request.js';
import { encodeOpenAIChatRequest } from '../../../src/protocols/openai-chat/upstream/encode-request.js';

const ctx = { model: 'gpt-4o', stream: false };

function errorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a GatewayError');
}

const camelRequest = {
  systemInstruction: { parts: [{ text: 'Be brief.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'Weather in Paris?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }, { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } }] },
    { role: 'model', parts: [{ text: 'plan', thought: true, thoughtSignature: 'c2ln' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'Q2lR' }] },
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 18 } } }, { text: 'and tomorrow?' }] },
  ],
  tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } }, required: ['city'], propertyOrdering: ['city'] } }] }],
  toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
  generationConfig: {
    temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 512, stopSequences: ['END'], candidateCount: 1, seed: 7, presencePenalty: 0.1, frequencyPenalty: 0.2,
    responseLogprobs: true, thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
  },
};

const snakeRequest = {
  system_instruction: { parts: [{ text: 'Be brief.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'Weather in Paris?' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } }, { file_data: { mime_type: 'application/pdf', file_uri: 'https://example.com/a.pdf' } }] },
    { role: 'model', parts: [{ text: 'plan', thought: true, thought_signature: 'c2ln' }, { function_call: { name: 'get_weather', args: { city: 'Paris' } }, thought_signature: 'Q2lR' }] },
    { role: 'user', parts: [{ function_response: { name: 'get_weather', response: { temp_c: 18 } } }, { text: 'and tomorrow?' }] },
  ],
  tools: [{ function_declarations: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } }, required: ['city'], propertyOrdering: ['city'] } }] }],
  tool_config: { function_calling_config: { mode: 'AUTO' } },
  safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
  generation_config: {
    temperature: 0.2, top_p: 0.9, top_k: 40, max_output_tokens: 512, stop_sequences: ['END'], candidate_count: 1, seed: 7, presence_penalty: 0.1, frequency_penalty: 0.2,
    response_logprobs: true, thinking_config: { include_thoughts: true, thinking_budget: 2048 },
  },
};

const expectedIR: IRChatRequest = {
  model: 'gpt-4o',
  stream: false,
  system: [{ type: 'text', text: 'Be brief.' }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris?' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'plan', signature: 'c2ln', providerOptions: { gemini: { thoughtSignature: 'c2ln' } } },
        { type: 'tool-call', id: 'call_1_1', name: 'get_weather', arguments: '{"city":"Paris"}', providerOptions: { gemini: { thoughtSignature: 'Q2lR' } } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1_1', toolName: 'get_weather', content: [{ type: 'text', text: '{"temp_c":18}' }] }] },
    { role: 'user', content: [{ type: 'text', text: 'and tomorrow?' }] },
  ],
  tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: ['string', 'null'] } }, required: ['city'] } }],
  toolChoice: { type: 'auto' },
  temperature: 0.2,
  topP: 0.9,
  topK: 40,
  maxTokens: 512,
  stop: ['END'],
  n: 1,
  seed: 7,
  presencePenalty: 0.1,
  frequencyPenalty: 0.2,
  reasoning: { includeThoughts: true, budgetTokens: 2048 },
  providerOptions: { gemini: { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }], generationConfig: { responseLogprobs: true } } },
};

describe('decode Gemini request -> IR', () => {
  it('decodes every modelled field (camelCase)', () => {
    expect(decodeGeminiRequest(camelRequest, ctx)).toEqual(expectedIR);
  });

  it('decodes the snake_case spelling to the same IR', () => {
    expect(decodeGeminiRequest(snakeRequest, ctx)).toEqual(expectedIR);
  });

  it('pairs function responses by id first, then by name in order', () => {
    const ir = decodeGeminiRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'x' }] },
          { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'f', args: { n: 2 } } }, { functionCall: { id: 'g-1', name: 'g', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { id: 'g-1', name: 'g', response: { result: 'G' } } }, { functionResponse: { name: 'f', response: { output: 'F1' } } }, { functionResponse: { name: 'f', response: { error: 'boom' } } }] },
        ],
      },
      ctx,
    );
    expect(ir.messages[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'g-1', toolName: 'g', content: [{ type: 'text', text: 'G' }] },
        { type: 'tool-result', toolCallId: 'call_1_0', toolName: 'f', content: [{ type: 'text', text: 'F1' }] },
        { type: 'tool-result', toolCallId: 'call_1_1', toolName: 'f', content: [{ type: 'text', text: 'boom' }], isError: true },
      ],
    });
  });

  it('joins adjacent thought parts so a signature stays with the text it signs', () => {
    const ir = decodeGeminiRequest(
      { contents: [{ role: 'user', parts: [{ text: 'x' }] }, { role: 'model', parts: [{ text: 'a', thought: true }, { text: 'b', thought: true }, { text: '', thought: true, thoughtSignature: 'c2ln' }, { text: 'answer' }] }] },
      ctx,
    );
    expect(ir.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'ab', signature: 'c2ln', providerOptions: { gemini: { thoughtSignature: 'c2ln' } } },
      { type: 'text', text: 'answer' },
    ]);
  });

  it('rejects what Gemini rejects, naming the field', () => {
    expect(errorOf(() => decodeGeminiRequest({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, ctx)).param).toBe('contents[0].role');
    expect(errorOf(() => decodeGeminiRequest({ contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, ctx)).param).toBe('contents[0].role');
    expect(errorOf(() => decodeGeminiRequest({ contents: [] }, ctx)).param).toBe('contents');
    expect(errorOf(() => decodeGeminiRequest({ contents: [{ role: 'user', parts: [{ inlineData: { data: 'AAAA' } }] }] }, ctx)).param).toBe('contents[0].parts[0].inlineData.mimeType');
    expect(errorOf(() => decodeGeminiRequest({ contents: [{ role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }] }, ctx)).message).toContain('exactly one data field');
    const orphan = errorOf(() =>
      decodeGeminiRequest({ contents: [{ role: 'user', parts: [{ text: 'x' }] }, { role: 'model', parts: [{ functionCall: { name: 'a' } }] }, { role: 'user', parts: [{ functionResponse: { name: 'b', response: {} } }] }] }, ctx),
    );
    expect(orphan.param).toBe('contents[2].parts[0].functionResponse.name');
    expect(errorOf(() => decodeGeminiRequest({ contents: [{ parts: [{ text: 'x' }] }], cachedContent: 'cachedContents/1' }, ctx)).code).toBe('unsupported');
    expect(errorOf(() => decodeGeminiRequest({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { responseModalities: ['AUDIO'] } }, ctx)).param).toBe('generationConfig.responseModalities');
    expect(errorOf(() => decodeGeminiRequest({ contents: [{ parts: [{ inlineData: { mimeType: 'audio/wav', data: 'AAAA' } }] }] }, ctx)).code).toBe('unsupported');
  });

  it('maps built-in tools, tool config, response schema and thinking level', () => {
    const ir = decodeGeminiRequest(
      {
        contents: [{ parts: [{ text: 'x' }] }],
        tools: [
          { functionDeclarations: [{ name: 'a', parametersJsonSchema: { type: 'OBJECT', properties: { q: { type: 'STRING' } } } }, { name: 'b' }, { name: 'c' }] },
          { googleSearch: {} },
        ],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'b'] } },
        generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'ARRAY', items: { type: 'INTEGER' } }, thinkingConfig: { thinkingLevel: 'high' } },
      },
      ctx,
    );
    expect(ir.tools).toEqual([
      { type: 'function', name: 'a', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      { type: 'function', name: 'b' },
      { type: 'provider', protocol: 'gemini', name: 'googleSearch (tools[1])', raw: { googleSearch: {} } },
    ]);
    expect(ir.toolChoice).toEqual({ type: 'required' });
    expect(ir.responseFormat).toEqual({ type: 'json_schema', name: 'response', schema: { type: 'array', items: { type: 'integer' } } });
    expect(ir.reasoning).toEqual({ effort: 'high' });
    const one = decodeGeminiRequest({ contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [{ name: 'a' }] }], toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a'] } } }, ctx);
    expect(one.toolChoice).toEqual({ type: 'tool', name: 'a' });
    const none = decodeGeminiRequest({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig: { thinkingBudget: 0 } }, toolConfig: { functionCallingConfig: { mode: 'NONE' } } }, ctx);
    expect(none.toolChoice).toEqual({ type: 'none' });
    expect(none.reasoning).toEqual({ effort: 'none' });
  });

  it('a Gemini-only tool cannot reach an OpenAI upstream', () => {
    const ir = decodeGeminiRequest({ contents: [{ parts: [{ text: 'x' }] }], tools: [{ codeExecution: {} }] }, ctx);
    const err = errorOf(() => encodeOpenAIChatRequest(ir, 'gpt-4o'));
    expect(err.code).toBe('unsupported');
    expect(err.message).toContain('codeExecution');
  });
});

describe('encode IR -> Gemini upstream body', () => {
  const openAIBody = {
    model: 'gemini-2.5-flash',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] },
      { role: 'assistant', content: null, tool_calls: [
        { id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_def', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ] },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"temp_c":18}' },
      { role: 'tool', tool_call_id: 'call_def', content: '12:00' },
      { role: 'user', content: 'thanks' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } } }],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    max_tokens: 100,
    temperature: 0.3,
    stop: ['STOP!'],
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
    reasoning_effort: 'low',
    user: 'u-1',
  };

  it('builds contents with merged roles, function names, signatures and generationConfig', () => {
    const ir = decodeOpenAIChatRequest(openAIBody);
    const { body, warnings } = encodeGeminiRequest(ir, 'gemini-2.5-flash');
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } }, { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png' } }] },
        { role: 'model', parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SKIP_SIGNATURE },
          { functionCall: { name: 'get_time', args: {} } },
        ] },
        { role: 'user', parts: [
          { functionResponse: { name: 'get_weather', response: { temp_c: 18 } } },
          { functionResponse: { name: 'get_time', response: { result: '12:00' } } },
          { text: 'thanks' },
        ] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: {
        maxOutputTokens: 100,
        temperature: 0.3,
        stopSequences: ['STOP!'],
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
        thinkingConfig: { thinkingBudget: 1024 },
      },
    });
    expect(warnings.map((w) => w.setting)).toEqual(['user']);
    expect(body).toMatchSnapshot();
  });

  it('uses thinkingLevel for Gemini 3 and an explicit budget when given', () => {
    const ir = decodeOpenAIChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'medium' });
    expect(encodeGeminiRequest(ir, 'gemini-3-pro-preview').body.generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'MEDIUM' } });
    expect(encodeGeminiRequest({ ...ir, reasoning: { budgetTokens: 3000, includeThoughts: true } }, 'gemini-2.5-pro').body.generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 3000, includeThoughts: true },
    });
    expect(encodeGeminiRequest({ ...ir, reasoning: { effort: 'none' } }, 'gemini-2.5-flash').body.generationConfig).toMatchObject({ thinkingConfig: { thinkingBudget: 0 } });
  });

  it('rejects what Gemini cannot express', () => {
    const base = decodeOpenAIChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const foreign = errorOf(() => encodeGeminiRequest({ ...base, tools: [{ type: 'provider', protocol: 'anthropic-messages', name: 'web_search_20250305', raw: {} }] }, 'gemini-2.5-flash'));
    expect(foreign.code).toBe('unsupported');
    expect(foreign.message).toContain('web_search_20250305');
    expect(errorOf(() => encodeGeminiRequest({ ...base, stop: ['1', '2', '3', '4', '5', '6'] }, 'g')).param).toBe('stop');
    const fileId = errorOf(() => encodeGeminiRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'file', source: { kind: 'file-id', fileId: 'file-1' } }] }] }, 'g'));
    expect(fileId.code).toBe('unsupported');
    const orphan = errorOf(() => encodeGeminiRequest({ ...base, messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'nope', content: [{ type: 'text', text: 'r' }] }] }] }, 'g'));
    expect(orphan.message).toContain('nope');
    // A Gemini built-in tool goes through unchanged.
    const builtIn = encodeGeminiRequest({ ...base, tools: [{ type: 'provider', protocol: 'gemini', name: 'googleSearch', raw: { googleSearch: {} } }] }, 'g');
    expect(builtIn.body.tools).toEqual([{ googleSearch: {} }]);
  });

  it('tool call arguments that are not a JSON object are sent as an object, with a warning saying how', () => {
    const ir = decodeOpenAIChatRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{not json' } }, { id: 'c2', type: 'function', function: { name: 'f', arguments: '[1,2]' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'a' },
        { role: 'tool', tool_call_id: 'c2', content: 'b' },
      ],
    });
    const { body, warnings } = encodeGeminiRequest(ir, 'gemini-2.5-flash');
    const calls = (body.contents as Array<{ parts: Array<{ functionCall?: { args: unknown } }> }>).flatMap((c) => c.parts).flatMap((p) => (p.functionCall ? [p.functionCall.args] : []));
    expect(calls).toEqual([{}, { value: [1, 2] }]);
    expect(warnings.map((w) => w.action)).toEqual(['tool call arguments that are not JSON sent as {}', 'tool call arguments that are not a JSON object sent as {"value": ...}']);
  });

  it('a 200 answer with neither candidates nor a block reason is a 502, not an empty answer', () => {
    for (const body of [{ error: { code: 500, message: 'The server had an error', status: 'INTERNAL' } }, { choices: 'nope', content: 42 }, {}]) {
      expect(() => decodeGeminiResponse(body), JSON.stringify(body)).toThrow(expect.objectContaining({ status: 502, message: expect.stringContaining('malformed Gemini response') }));
    }
    // A prompt refused by Gemini's filters has no candidates either, and is an answer (content filter).
    expect(decodeGeminiResponse({ promptFeedback: { blockReason: 'SAFETY' } }).finishReason).toEqual({ unified: 'content-filter', raw: 'SAFETY' });
  });

  it('replays the thought signature carried in a tool call id (Gemini -> OpenAI client -> Gemini)', () => {
    const upstream = decodeGeminiResponse({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQB0e2Kb+/xAA==' }] }, finishReason: 'STOP' }],
      responseId: 'resp-1',
    });
    const call = upstream.content[0] as { id: string };
    // The OpenAI client only echoes the id back.
    const next = decodeOpenAIChatRequest({
      model: 'gemini-3-pro-preview',
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: call.id, content: 'sunny' },
      ],
    });
    const { body } = encodeGeminiRequest(next, 'gemini-3-pro-preview');
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQB0e2Kb+/xAA==' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
    ]);
  });

  it('restores a Gemini request through the IR (Gemini-only fields included)', () => {
    const ir = decodeGeminiRequest(camelRequest, { model: 'gemini-2.5-flash', stream: false });
    const { body } = encodeGeminiRequest(ir, 'gemini-2.5-flash');
    expect(body.contents).toEqual([
      camelRequest.contents[0],
      camelRequest.contents[1],
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 18 } } }, { text: 'and tomorrow?' }] },
    ]);
    expect(body.safetySettings).toEqual(camelRequest.safetySettings);
    expect(body.generationConfig).toMatchObject({ responseLogprobs: true, thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, topK: 40 });
  });
});

describe('the recorded Gemini CLI request', () => {
  const capture = JSON.parse(readFileSync(new URL('../../fixtures/agents/gemini-request.json', import.meta.url), 'utf8')) as { body: Record<string, unknown> };
  const router = JSON.parse(readFileSync(new URL('../../fixtures/agents/gemini-router-request.json', import.meta.url), 'utf8')) as { body: Record<string, unknown> };

  it('translates for an OpenAI upstream: every tool, system prompt and thinking budget', () => {
    const ir = decodeGeminiRequest(capture.body, { model: 'gpt-4o', stream: true });
    const decls = (capture.body.tools as Array<{ functionDeclarations: unknown[] }>)[0]!.functionDeclarations;
    expect(ir.tools).toHaveLength(decls.length);
    expect(ir.reasoning).toEqual({ includeThoughts: true, budgetTokens: 8192 });
    const { body } = encodeOpenAIChatRequest(ir, 'gpt-4o', { maxTokensField: 'max_completion_tokens' });
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect((body.tools as unknown[]).length).toBe(decls.length);
    expect(body).toMatchSnapshot();
  });

  it('translates the router call (responseJsonSchema with upper-case types, thinkingLevel)', () => {
    const ir = decodeGeminiRequest(router.body, { model: 'gpt-4o', stream: false });
    expect(ir.responseFormat).toMatchObject({ type: 'json_schema', schema: { type: 'object', properties: { complexity_score: { type: 'integer' } } } });
    expect(ir.reasoning).toEqual({ includeThoughts: true, effort: 'high' });
    expect(ir.messages.map((m) => m.role)).toEqual(['user', 'user']);
  });
});
