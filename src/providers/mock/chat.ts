/**
 * The built-in mock vendor's chat endpoint: an in-process OpenAI-compatible server that answers
 * deterministically (text, streams, tool calls when tools are given), so the embedded default and
 * tests work with no network and no keys.
 */

interface MockMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

interface MockTool {
  type: string;
  function?: { name: string; parameters?: { properties?: Record<string, { type?: string }> } };
}

interface MockChatBody {
  model?: string;
  messages?: MockMessage[];
  tools?: MockTool[];
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  parallel_tool_calls?: boolean;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : p.type === 'image_url' ? '[image]' : p.type === 'file' ? '[file]' : ''))
      .filter(Boolean)
      .join(' ');
  }
  return '';
}

/** Rough token count: one token per word or punctuation run. */
export function mockTokens(text: string): number {
  return (text.match(/\w+|[^\s\w]/g) ?? []).length;
}

function sampleArgs(tool: MockTool, seed: string): string {
  const props = tool.function?.parameters?.properties ?? {};
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(props)) {
    args[name] = schema.type === 'number' || schema.type === 'integer' ? 42 : schema.type === 'boolean' ? true : `${seed || 'value'}`.slice(0, 40);
  }
  return JSON.stringify(args);
}

interface MockPlan {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish: 'stop' | 'length' | 'tool_calls';
  promptTokens: number;
  completionTokens: number;
}

function planMockChat(body: MockChatBody): MockPlan {
  const messages = body.messages ?? [];
  const promptTokens = messages.reduce((n, m) => n + mockTokens(textOf(m.content)) + 3, 0);
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const functionTools = (body.tools ?? []).filter((t) => t.type === 'function' && t.function);
  const wantsTools = functionTools.length > 0 && body.tool_choice !== 'none' && last?.role !== 'tool';
  if (wantsTools) {
    const forced = typeof body.tool_choice === 'object' && body.tool_choice ? (body.tool_choice as { function?: { name?: string } }).function?.name : undefined;
    const chosen = forced ? functionTools.filter((t) => t.function?.name === forced) : functionTools.slice(0, body.parallel_tool_calls === false ? 1 : 2);
    const seed = textOf(lastUser?.content).split(/\s+/).slice(-1)[0] ?? '';
    const toolCalls = chosen.map((t, i) => ({ id: `call_mock_${i}`, name: t.function?.name ?? 'tool', arguments: sampleArgs(t, seed) }));
    return { text: '', toolCalls, finish: 'tool_calls', promptTokens, completionTokens: toolCalls.reduce((n, c) => n + mockTokens(c.arguments) + 2, 0) };
  }
  let text: string;
  if (last?.role === 'tool') {
    const results = messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));
    text = `Tool results received: ${results.join('; ')}.`;
  } else {
    text = `This is a mock response to: ${textOf(lastUser?.content) || '(empty)'}`;
  }
  let finish: MockPlan['finish'] = 'stop';
  const stops = body.stop === undefined ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  for (const s of stops) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0) text = text.slice(0, at);
  }
  const limit = body.max_completion_tokens ?? body.max_tokens;
  const words = text.match(/\S+\s*/g) ?? [];
  if (limit !== undefined && words.length > limit) {
    text = words.slice(0, limit).join('').trimEnd();
    finish = 'length';
  }
  return { text, toolCalls: [], finish, promptTokens, completionTokens: Math.min(words.length, limit ?? Infinity) };
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function mockChatResponse(body: MockChatBody, now: number): Response {
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return jsonResponse(400, { error: { message: "'messages' is required", type: 'invalid_request_error', param: 'messages', code: null } });
  }
  const plan = planMockChat(body);
  const model = body.model ?? 'mock-chat';
  const id = `chatcmpl-mock${now}`;
  const usage = { prompt_tokens: plan.promptTokens, completion_tokens: plan.completionTokens, total_tokens: plan.promptTokens + plan.completionTokens };
  if (!body.stream) {
    const message: Record<string, unknown> = { role: 'assistant', content: plan.toolCalls.length ? null : plan.text, refusal: null };
    if (plan.toolCalls.length) message.tool_calls = plan.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    return jsonResponse(200, { id, object: 'chat.completion', created: now, model, choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finish }], usage });
  }
  const frames: string[] = [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    frames.push(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: now, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`);
  chunk({ role: 'assistant', content: plan.toolCalls.length ? null : '' });
  for (const piece of plan.text.match(/\S+\s*/g) ?? []) chunk({ content: piece });
  plan.toolCalls.forEach((c, index) => {
    chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
    const mid = Math.ceil(c.arguments.length / 2);
    chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(0, mid) } }] });
    chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(mid) } }] });
  });
  chunk({}, plan.finish);
  if (body.stream_options?.include_usage) frames.push(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: now, model, choices: [], usage })}\n\n`);
  frames.push('data: [DONE]\n\n');
  const encoder = new TextEncoder();
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const frame = frames[i++];
      if (frame === undefined) controller.close();
      else controller.enqueue(encoder.encode(frame));
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}
