/**
 * Request validation of the strict mock Anthropic upstream: rejects what api.anthropic.com rejects,
 * with messages in the API's own style (`messages.1.content.0.type: ...`).
 */
import { jsonSchemaProblem } from './json-schema-check.js';

type Json = Record<string, unknown>;

/** Top-level fields the Messages API accepts; anything else is "Extra inputs are not permitted". */
const MESSAGE_FIELDS = new Set([
  'model', 'max_tokens', 'messages', 'system', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'stream', 'tools',
  'tool_choice', 'thinking', 'metadata', 'service_tier', 'output_config', 'cache_control', 'container', 'inference_geo',
  'mcp_servers', 'context_management', 'output_format',
]);
const COUNT_FIELDS = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'cache_control', 'mcp_servers', 'context_management']);

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

export class MockValidationError extends Error {}

function fail(message: string): never {
  throw new MockValidationError(message);
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The signature the mock puts on thinking blocks; replayed blocks must carry exactly this. */
export function mockSignature(thinking: string): string {
  return `EqMock${Buffer.from(thinking).toString('base64')}`;
}

interface Counter {
  cacheBreakpoints: number;
}

function checkCacheControl(v: unknown, path: string, counter: Counter): void {
  if (v === undefined || v === null) return;
  if (!isObj(v) || v.type !== 'ephemeral') fail(`${path}.cache_control.type: Input should be 'ephemeral'`);
  if (v.ttl !== undefined && v.ttl !== '5m' && v.ttl !== '1h') fail(`${path}.cache_control.ttl: Input should be '5m' or '1h'`);
  counter.cacheBreakpoints++;
}

function checkSource(src: unknown, path: string, kind: 'image' | 'document'): void {
  if (!isObj(src)) fail(`${path}.source: Field required`);
  switch (src.type) {
    case 'base64':
      if (typeof src.data !== 'string' || src.data === '') fail(`${path}.source.data: Field required`);
      // Like the real API: only standard, padded base64 decodes (URL-safe `-`/`_` does not).
      if (src.data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(src.data)) fail(`${path}.${kind}.source.base64: invalid base64 data`);
      if (kind === 'image' && !IMAGE_TYPES.has(String(src.media_type))) {
        fail(`${path}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
      }
      if (kind === 'document' && src.media_type !== 'application/pdf') fail(`${path}.source.media_type: Input should be 'application/pdf'`);
      return;
    case 'url':
      if (typeof src.url !== 'string' || !/^https?:\/\//.test(src.url)) fail(`${path}.source.url: Input should be a valid URL`);
      return;
    case 'file':
      if (typeof src.file_id !== 'string') fail(`${path}.source.file_id: Field required`);
      return;
    case 'text':
      if (kind === 'document' && typeof src.data === 'string') return;
      break;
    case 'content':
      if (kind === 'document') return;
      break;
  }
  fail(`${path}.source.type: Input tag '${String(src.type)}' found using 'type' does not match any of the expected tags`);
}

function checkBlock(block: unknown, path: string, role: string, counter: Counter): void {
  if (!isObj(block)) fail(`${path}: Input should be a valid dictionary or object`);
  checkCacheControl(block.cache_control, path, counter);
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') fail(`${path}.text: Field required`);
      if (block.text === '') fail('messages: text content blocks must be non-empty');
      return;
    case 'image':
      return checkSource(block.source, path, 'image');
    case 'document':
      return checkSource(block.source, path, 'document');
    case 'tool_use':
      if (role !== 'assistant') fail(`${path}: tool_use blocks are only allowed in assistant messages`);
      if (typeof block.id !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(block.id)) fail(`${path}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof block.name !== 'string') fail(`${path}.name: Field required`);
      if (!isObj(block.input)) fail(`${path}.input: Input should be a valid dictionary`);
      return;
    case 'tool_result': {
      if (role !== 'user') fail(`${path}: tool_result blocks are only allowed in user messages`);
      if (typeof block.tool_use_id !== 'string') fail(`${path}.tool_use_id: Field required`);
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean') fail(`${path}.is_error: Input should be a valid boolean`);
      const c = block.content;
      if (c === undefined || typeof c === 'string') return;
      if (!Array.isArray(c)) fail(`${path}.content: Input should be a valid string or list`);
      c.forEach((inner, k) => {
        if (!isObj(inner) || !['text', 'image', 'document', 'search_result'].includes(String(inner.type))) {
          fail(`${path}.content.${k}.type: Input tag '${String(isObj(inner) ? inner.type : inner)}' found using 'type' does not match any of the expected tags`);
        }
        checkBlock(inner, `${path}.content.${k}`, 'user', counter);
      });
      return;
    }
    case 'thinking':
      if (typeof block.thinking !== 'string') fail(`${path}.thinking.thinking: Field required`);
      if (typeof block.signature !== 'string') fail(`${path}.thinking.signature: Field required`);
      if (block.signature !== mockSignature(block.thinking)) fail(`${path}: Invalid \`signature\` in \`thinking\` block`);
      return;
    case 'redacted_thinking':
      if (typeof block.data !== 'string') fail(`${path}.redacted_thinking.data: Field required`);
      return;
    case 'search_result':
    case 'server_tool_use':
    case 'web_search_tool_result':
    case 'web_fetch_tool_result':
    case 'code_execution_tool_result':
    case 'container_upload':
      return;
    default:
      fail(`${path}.type: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags`);
  }
}

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content.filter(isObj) as Json[]) : [];
}

function checkMessages(messages: unknown, counter: Counter, systemMessages: boolean): void {
  if (messages === undefined) fail('messages: Field required');
  if (!Array.isArray(messages)) fail('messages: Input should be a valid list');
  if (messages.length === 0) fail('messages: at least one message is required');
  messages.forEach((m, i) => {
    const path = `messages.${i}`;
    if (!isObj(m)) fail(`${path}: Input should be a valid dictionary`);
    if (m.role === 'system' && systemMessages) {
      checkSystem(m.content, counter, `${path}.content`);
      return;
    }
    if (m.role !== 'user' && m.role !== 'assistant') fail(`${path}.role: Input should be 'user' or 'assistant'`);
    for (const k of Object.keys(m)) if (k !== 'role' && k !== 'content') fail(`${path}.${k}: Extra inputs are not permitted`);
    if (typeof m.content === 'string') {
      if (m.content === '' && i !== messages.length - 1) fail(`${path}: all messages must have non-empty content except for the optional final assistant message`);
    } else if (Array.isArray(m.content)) {
      if (m.content.length === 0 && !(i === messages.length - 1 && m.role === 'assistant')) {
        fail(`${path}: all messages must have non-empty content except for the optional final assistant message`);
      }
      m.content.forEach((b, j) => checkBlock(b, `${path}.content.${j}`, String(m.role), counter));
    } else fail(`${path}.content: Field required`);
  });
  // Every tool_use must be answered by a tool_result in the very next (user) message, and vice versa
  // (mid-conversation system messages aside).
  const turns = (messages as Json[]).filter((m) => m.role !== 'system');
  // As Anthropic: each tool_use id appears once in the conversation.
  const useIds = new Set<string>();
  turns.forEach((m, i) => {
    blocksOf(m.content).forEach((b, j) => {
      if (b.type !== 'tool_use') return;
      if (useIds.has(String(b.id))) fail(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
      useIds.add(String(b.id));
    });
  });
  turns.forEach((m, i) => {
    const uses = m.role === 'assistant' ? blocksOf(m.content).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [];
    const next = turns[i + 1] as Json | undefined;
    const results = next && next.role === 'user' ? blocksOf(next.content).filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)) : [];
    const missing = uses.filter((id) => !results.includes(id));
    if (missing.length && i + 1 < turns.length) {
      fail(`messages.${i + 1}.content.0: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
    }
    if (m.role === 'user') {
      const prev = i > 0 ? (turns[i - 1] as Json) : undefined;
      const prevUses = prev && prev.role === 'assistant' ? blocksOf(prev.content).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [];
      for (const b of blocksOf(m.content)) {
        if (b.type === 'tool_result' && !prevUses.includes(String(b.tool_use_id))) {
          fail(`messages.${i}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
        }
      }
    }
  });
  const last = turns[turns.length - 1];
  if (last?.role === 'assistant') {
    const blocks = blocksOf(last.content);
    const tail = blocks[blocks.length - 1];
    if (tail?.type === 'text' && typeof tail.text === 'string' && /\s$/.test(tail.text)) fail('messages: final assistant content cannot end with trailing whitespace');
  }
}

function checkSystem(system: unknown, counter: Counter, path = 'system'): void {
  if (system === undefined || typeof system === 'string') return;
  if (!Array.isArray(system)) fail(`${path}: Input should be a valid string or list`);
  system.forEach((b, i) => {
    if (!isObj(b) || b.type !== 'text') fail(`${path}.${i}.type: Input should be 'text'`);
    if (typeof b.text !== 'string') fail(`${path}.${i}.text: Field required`);
    if (b.text === '') fail(`${path}: text content blocks must be non-empty`);
    checkCacheControl(b.cache_control, `${path}.${i}`, counter);
  });
}

function checkTools(tools: unknown, toolChoice: unknown, counter: Counter): void {
  if (tools !== undefined) {
    if (!Array.isArray(tools)) fail('tools: Input should be a valid list');
    const names = new Set<string>();
    tools.forEach((t, i) => {
      if (!isObj(t)) fail(`tools.${i}: Input should be a valid dictionary`);
      if (typeof t.name !== 'string') fail(`tools.${i}.name: Field required`);
      if (names.has(t.name)) fail(`tools: Tool names must be unique.`);
      names.add(t.name);
      checkCacheControl(t.cache_control, `tools.${i}`, counter);
      if (t.type === undefined || t.type === 'custom' || t.type === null) {
        if (!TOOL_NAME.test(t.name)) fail(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
        if (!isObj(t.input_schema)) fail(`tools.${i}.custom.input_schema: Field required`);
        if (t.input_schema.type !== 'object') fail(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
        if (jsonSchemaProblem(t.input_schema)) {
          fail(`tools.${i}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.claude.com/en/docs/tool-use.`);
        }
        for (const k of Object.keys(t)) {
          if (!['type', 'name', 'description', 'input_schema', 'cache_control', 'strict', 'eager_input_streaming', 'input_examples', 'defer_loading', 'allowed_callers'].includes(k)) {
            fail(`tools.${i}.custom.${k}: Extra inputs are not permitted`);
          }
        }
      } else if (t.type === 'web_search_20250305') {
        if (t.name !== 'web_search') fail(`tools.${i}.web_search_20250305.name: Input should be 'web_search'`);
        for (const k of Object.keys(t)) {
          if (!['type', 'name', 'allowed_domains', 'blocked_domains', 'max_uses', 'user_location', 'cache_control', 'allowed_callers', 'defer_loading', 'strict'].includes(k)) {
            fail(`tools.${i}.web_search_20250305.${k}: Extra inputs are not permitted`);
          }
        }
        if (t.allowed_domains != null && t.blocked_domains != null) fail('tools: Cannot specify both allowed_domains and blocked_domains.');
        if (t.user_location != null) {
          const loc = t.user_location;
          if (!isObj(loc) || loc.type !== 'approximate') fail(`tools.${i}.web_search_20250305.user_location.type: Input should be 'approximate'`);
          for (const k of Object.keys(loc)) {
            if (!['type', 'city', 'region', 'country', 'timezone'].includes(k)) fail(`tools.${i}.web_search_20250305.user_location.${k}: Extra inputs are not permitted`);
          }
        }
      } else if (typeof t.type !== 'string' || !/_\d{8}$/.test(t.type)) {
        fail(`tools.${i}.type: Input tag '${String(t.type)}' found using 'type' does not match any of the expected tags`);
      }
    });
  }
  if (toolChoice !== undefined) {
    if (!isObj(toolChoice)) fail('tool_choice: Input should be a valid dictionary or object to extract fields from');
    if (!['auto', 'any', 'tool', 'none'].includes(String(toolChoice.type))) {
      fail(`tool_choice.type: Input tag '${String(toolChoice.type)}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`);
    }
    if (toolChoice.type === 'tool' && typeof toolChoice.name !== 'string') fail('tool_choice.tool.name: Field required');
    if (toolChoice.disable_parallel_tool_use !== undefined && typeof toolChoice.disable_parallel_tool_use !== 'boolean') {
      fail(`tool_choice.${String(toolChoice.type)}.disable_parallel_tool_use: Input should be a valid boolean`);
    }
  }
}

function checkThinking(thinking: unknown, maxTokens: number | undefined): void {
  if (thinking === undefined) return;
  if (!isObj(thinking)) fail('thinking: Input should be a valid dictionary or object to extract fields from');
  if (thinking.type === 'enabled') {
    if (!isInt(thinking.budget_tokens)) fail('thinking.enabled.budget_tokens: Field required');
    if (thinking.budget_tokens < 1024) fail('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (maxTokens !== undefined && thinking.budget_tokens >= maxTokens) fail('`max_tokens` must be greater than `thinking.budget_tokens`');
  } else if (thinking.type !== 'disabled' && thinking.type !== 'adaptive') {
    fail(`thinking.type: Input tag '${String(thinking.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`);
  }
}

/** Settings the API refuses while extended thinking is on. */
function checkThinkingCompat(body: Json): void {
  if (body.temperature !== undefined && body.temperature !== 1) fail('`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.');
  if (body.top_k !== undefined) fail('`top_k` is not supported when thinking is enabled.');
  if (typeof body.top_p === 'number' && body.top_p < 0.95) fail('`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.');
  const tc = body.tool_choice;
  if (isObj(tc) && (tc.type === 'any' || tc.type === 'tool')) fail('Thinking may not be enabled when tool_choice forces tool use.');
  const messages = (body.messages as Json[]).filter((m) => m.role !== 'system');
  const last = messages[messages.length - 1];
  const prev = messages[messages.length - 2];
  if (last?.role === 'user' && blocksOf(last.content).some((b) => b.type === 'tool_result') && prev?.role === 'assistant') {
    const first = blocksOf(prev.content)[0]?.type;
    if (first !== 'thinking' && first !== 'redacted_thinking') {
      fail(`messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`);
    }
  }
}

/** Throws MockValidationError for anything the real API would reject with 400. */
export function validateAnthropicBody(body: unknown, kind: 'messages' | 'count_tokens', betas: string[] = []): Json {
  if (!isObj(body)) fail('Input should be a valid dictionary');
  const allowed = kind === 'messages' ? MESSAGE_FIELDS : COUNT_FIELDS;
  for (const k of Object.keys(body)) if (!allowed.has(k)) fail(`${k}: Extra inputs are not permitted`);
  if (typeof body.model !== 'string' || body.model === '') fail('model: Field required');
  let maxTokens: number | undefined;
  if (kind === 'messages') {
    if (body.max_tokens === undefined) fail('max_tokens: Field required');
    if (!isInt(body.max_tokens)) fail('max_tokens: Input should be a valid integer');
    if (body.max_tokens < 0) fail('max_tokens: Input should be greater than or equal to 0');
    maxTokens = body.max_tokens;
    if (body.temperature !== undefined && (typeof body.temperature !== 'number' || body.temperature < 0 || body.temperature > 1)) {
      fail('temperature: Input should be less than or equal to 1');
    }
    if (body.top_p !== undefined && (typeof body.top_p !== 'number' || body.top_p < 0 || body.top_p > 1)) fail('top_p: Input should be less than or equal to 1');
    if (body.top_k !== undefined && (!isInt(body.top_k) || body.top_k < 0)) fail('top_k: Input should be greater than or equal to 0');
    if (body.stop_sequences !== undefined && (!Array.isArray(body.stop_sequences) || body.stop_sequences.some((s) => typeof s !== 'string'))) {
      fail('stop_sequences: Input should be a valid list of strings');
    }
    if (body.stream !== undefined && typeof body.stream !== 'boolean') fail('stream: Input should be a valid boolean');
    if (body.metadata !== undefined) {
      if (!isObj(body.metadata)) fail('metadata: Input should be a valid dictionary');
      for (const k of Object.keys(body.metadata)) if (k !== 'user_id') fail(`metadata.${k}: Extra inputs are not permitted`);
      if (body.metadata.user_id !== undefined && body.metadata.user_id !== null && typeof body.metadata.user_id !== 'string') {
        fail('metadata.user_id: Input should be a valid string');
      }
    }
  }
  const counter: Counter = { cacheBreakpoints: 0 };
  checkSystem(body.system, counter);
  // `role: "system"` inside messages only exists behind its beta flag.
  checkMessages(body.messages, counter, betas.some((b) => b.startsWith('mid-conversation-system')));
  checkTools(body.tools, body.tool_choice, counter);
  checkThinking(body.thinking, maxTokens);
  if (isObj(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive')) checkThinkingCompat(body);
  checkCacheControl(body.cache_control, 'cache_control', counter);
  if (counter.cacheBreakpoints > 4) fail(`A maximum of 4 blocks with cache_control may be provided. Found ${counter.cacheBreakpoints}.`);
  return body;
}
