/** Usage, finish reasons and output items of a Responses answer, in IR terms (shared by the sync and stream decoders). */
import { GatewayError } from '../../../core/errors.js';
import type { IRContentPart, IRFinishReason, IRUsage } from '../../../ir/types.js';
import { toReasoningSignature } from './reasoning-signature.js';
import type { OutputItemWire, ReasoningItemWire, ResponseObjectWire, ResponsesUsageWire } from './responses-wire.js';

/** Usage exactly as reported: cached and reasoning tokens are parts of input and output. */
export function fromResponsesUsage(u: ResponsesUsageWire | null | undefined): IRUsage {
  if (!u) return {};
  const out: IRUsage = { inputTokens: u.input_tokens, outputTokens: u.output_tokens, totalTokens: u.total_tokens ?? u.input_tokens + u.output_tokens };
  const cached = u.input_tokens_details?.cached_tokens;
  if (cached != null) out.cachedInputTokens = cached;
  const written = u.input_tokens_details?.cache_write_tokens;
  if (written != null) out.cacheWriteTokens = written;
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  if (reasoning != null) out.reasoningTokens = reasoning;
  return out;
}

/**
 * The finish of a terminal response: `completed` (a tool-call turn when it called functions),
 * `incomplete` by its reason. `failed`/`cancelled` are errors, never a quiet finish.
 */
export function finishOf(res: Pick<ResponseObjectWire, 'status' | 'error' | 'incomplete_details'>, calledTools: boolean): IRFinishReason {
  const status = res.status ?? 'completed';
  if (status === 'completed') return calledTools ? { unified: 'tool-calls', raw: 'completed' } : { unified: 'stop', raw: 'completed' };
  if (status === 'incomplete') {
    const reason = res.incomplete_details?.reason ?? undefined;
    const unified = reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content-filter' : 'other';
    return { unified, raw: reason ?? 'incomplete' };
  }
  throw failureOf(res);
}

/** The error a failed, cancelled or unfinished response stands for. */
export function failureOf(res: Pick<ResponseObjectWire, 'status' | 'error'>): GatewayError {
  if (res.status === 'failed') return new GatewayError('upstream_error', `The upstream response failed: ${res.error?.message ?? 'no reason given'}${res.error?.code ? ` (${res.error.code})` : ''}.`);
  if (res.status === 'cancelled') return new GatewayError('upstream_error', 'The upstream response was cancelled.');
  return new GatewayError('bad_gateway', `The upstream answered with an unfinished response (status ${String(res.status)}).`);
}

/** A reasoning item's readable text: its summary, else its raw reasoning text. */
export function reasoningText(item: ReasoningItemWire): string {
  const summary = (item.summary ?? []).map((s) => s.text).filter(Boolean);
  if (summary.length) return summary.join('\n\n');
  return (item.content ?? []).map((c) => c.text).join('');
}

/** One output item -> IR parts; built-in tool items have no IR form and are left out. */
export function partsOfItem(item: OutputItemWire): IRContentPart[] {
  switch (item.type) {
    case 'message': {
      const parts: IRContentPart[] = [];
      for (const c of (item as { content: Array<Record<string, unknown>> }).content) {
        if (c.type === 'output_text' && typeof c.text === 'string') {
          const annotations = Array.isArray(c.annotations) && c.annotations.length ? { providerOptions: { 'openai-responses': { annotations: c.annotations } } } : {};
          parts.push({ type: 'text', text: c.text, ...annotations });
        } else if (c.type === 'refusal' && typeof c.refusal === 'string') parts.push({ type: 'text', text: c.refusal, refusal: true });
      }
      return parts;
    }
    case 'function_call': {
      const fc = item as { call_id: string; name: string; arguments: string };
      return [{ type: 'tool-call', id: fc.call_id, name: fc.name, arguments: fc.arguments || '{}' }];
    }
    case 'reasoning': {
      const rs = item as ReasoningItemWire;
      const text = reasoningText(rs);
      const enc = rs.encrypted_content ?? undefined;
      if (!text && !enc) return [];
      return [{
        type: 'reasoning',
        text,
        ...(enc ? { signature: toReasoningSignature(rs.id, enc), providerOptions: { 'openai-responses': { itemId: rs.id, encryptedContent: enc } } } : {}),
      }];
    }
    default:
      return [];
  }
}
