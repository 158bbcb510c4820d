/**
 * The reasoning a chat completions request asks for, in any of the spellings clients of the
 * vendors' OpenAI-compatible endpoints use: OpenAI's `reasoning_effort`, Gemini's
 * `google.thinking_config` (`thinking_budget`, `thinking_level`, `include_thoughts`; at the top level
 * or under a literal `extra_body` key, as the OpenAI Python SDK's nested `extra_body` sends it) and
 * Anthropic's `thinking` (`{"type": "enabled", "budget_tokens": N}`, `disabled`, `adaptive`). Read
 * into the IR's reasoning, so every vendor that thinks gets it in its own terms.
 */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatRequest } from '../../../ir/types.js';
import type { ChatRequest, GoogleExtension } from '../openai-chat-api.js';

/** Top-level fields of the vendor extensions: read here, never sent on as they are. */
export const EXTENSION_FIELDS = ['google', 'extra_body', 'thinking'] as const;

/** Whether the body carries a vendor extension (the OpenAI upstreams do not know them). */
export function hasVendorExtensions(body: Record<string, unknown>): boolean {
  return EXTENSION_FIELDS.some((k) => body[k] !== undefined && body[k] !== null);
}

/** Gemini's extension and where it was found. */
export function googleExtension(req: Pick<ChatRequest, 'google' | 'extra_body'>): { google: GoogleExtension; at: string } | undefined {
  if (req.google) return { google: req.google, at: 'google' };
  const nested = req.extra_body?.google;
  return nested ? { google: nested, at: 'extra_body.google' } : undefined;
}

type Reasoning = NonNullable<IRChatRequest['reasoning']>;

/** Effort of Anthropic's `thinking: {"type": "enabled"}` without a budget (GLM and Kimi send it so). */
const ENABLED_EFFORT = 'medium';

/**
 * The IR reasoning of a request, or undefined. How much to think may be said once (Gemini refuses
 * `thinking_budget` together with `reasoning_effort`): a second way is a 400 naming it.
 * `include_thoughts` goes with any of them.
 */
export function decodeChatReasoning(req: ChatRequest): Reasoning | undefined {
  const amounts: Array<{ at: string; value: Reasoning }> = [];
  if (req.reasoning_effort != null) amounts.push({ at: 'reasoning_effort', value: { effort: req.reasoning_effort } });
  const g = googleExtension(req);
  const tc = g?.google.thinking_config;
  if (g && tc) {
    const budget = tc.thinking_budget;
    // -1 is Gemini's dynamic thinking: the model decides, as with no budget at all.
    if (budget != null) amounts.push({ at: `${g.at}.thinking_config.thinking_budget`, value: budget === -1 ? {} : { budgetTokens: budget } });
    if (tc.thinking_level != null) amounts.push({ at: `${g.at}.thinking_config.thinking_level`, value: { effort: tc.thinking_level } });
  }
  const t = req.thinking;
  if (t) {
    const value: Reasoning = t.type === 'disabled' ? { effort: 'none' } : t.type === 'adaptive' ? { includeThoughts: true } : t.budget_tokens !== undefined ? { budgetTokens: t.budget_tokens } : { effort: ENABLED_EFFORT };
    amounts.push({ at: 'thinking', value });
  }
  const [first, second] = amounts;
  if (first && second) {
    throw new GatewayError('invalid_request', `Send one of ${first.at} and ${second.at}: both say how much the model should think.`, { param: second.at });
  }
  const out: Reasoning = { ...amounts[0]?.value };
  if (tc?.include_thoughts != null) out.includeThoughts = tc.include_thoughts;
  return Object.keys(out).length ? out : undefined;
}

/**
 * Gemini-only settings of the `google` extension besides thinking (`cached_content`, ...), named as
 * the Gemini API names them, for a Gemini upstream (others report them dropped).
 */
export function geminiOptions(req: Pick<ChatRequest, 'google' | 'extra_body'>): Record<string, unknown> | undefined {
  const g = googleExtension(req);
  if (!g) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(g.google)) {
    if (k !== 'thinking_config' && v !== undefined) out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/** A Gemini setting of the `google` extension (`cachedContent`) as the request named it (`google.cached_content`). */
export function googleSettingName(setting: string, body: Record<string, unknown>): string | undefined {
  const g = googleExtension(body as Pick<ChatRequest, 'google' | 'extra_body'>);
  if (!g || typeof g.google !== 'object') return undefined;
  const snake = setting.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return Object.hasOwn(g.google, snake) ? `${g.at}.${snake}` : undefined;
}

/** Fields under a literal `extra_body` besides `google`: what the OpenAI SDK would have sent at the top level. */
export function extraBodyFields(req: Pick<ChatRequest, 'extra_body'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req.extra_body ?? {})) if (k !== 'google' && v !== undefined) out[k] = v;
  return out;
}

/** The request field a reasoning warning is about: the one the client used. */
export function reasoningFieldName(body: Record<string, unknown>): string {
  if (body.reasoning_effort != null) return 'reasoning_effort';
  if (body.thinking != null) return 'thinking';
  const g = googleExtension(body as Pick<ChatRequest, 'google' | 'extra_body'>);
  return g ? `${g.at}.thinking_config` : 'reasoning_effort';
}
