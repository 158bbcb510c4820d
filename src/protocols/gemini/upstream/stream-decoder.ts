/**
 * Gemini SSE chunks -> IR events. Each chunk holds only new parts; function calls arrive whole and
 * become start/delta(full JSON)/end with increasing index. The finish reason and the full usage
 * arrive on the last chunk(s); usage is taken from the last chunk that has it, never summed.
 */
import { codeForStatus, GatewayError } from '../../../core/errors.js';
import type { SSEEvent } from '../../../wire/sse.js';
import type { IRFinishReason, IRStreamEvent, IRUsage } from '../../../ir/types.js';
import { createOpenBlocks, REASONING_BLOCK, streamEndedEarly, TEXT_BLOCK } from '../../shared/stream-blocks.js';
import type { StreamDecoder } from '../../types.js';
import { decodeResponsePart } from './decode-response.js';
import { generateContentResponseSchema, type GenerateContentResponseWire } from '../gemini-api.js';
import { fromGeminiFinishReason } from './map-finish-reason.js';
import { groundingCitations, groundingSearch } from './grounding.js';
import { responseKeyOf } from './tool-call-ids.js';
import { fromGeminiUsage } from './usage.js';
import { NOT_JSON, parseJsonOr } from '../../shared/json.js';

interface ErrorChunk {
  error?: { code?: number; message?: string; status?: string };
}

/** A chunk `{"error":{code,message,status}}` -> GatewayError keeping the upstream status. */
export function streamErrorOf(json: unknown): GatewayError | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const err = (json as ErrorChunk).error;
  if (!err || typeof err !== 'object') return undefined;
  const status = typeof err.code === 'number' && err.code >= 400 && err.code < 600 ? err.code : 502;
  const message = typeof err.message === 'string' ? err.message : 'The upstream reported an error mid-stream.';
  return new GatewayError(status >= 500 ? 'upstream_error' : codeForStatus(status), message, { status });
}

const malformed = (): GatewayError => new GatewayError('bad_gateway', 'The upstream sent a malformed Gemini stream chunk.');

export function createGeminiStreamDecoder(): StreamDecoder {
  let started = false;
  let done = false;
  let key = '';
  const blocks = createOpenBlocks<'t0' | 'r0'>();
  let toolIndex = 0;
  let rawFinish: string | undefined;
  let blockReason: string | undefined;
  let usage: IRUsage = {};
  /** The answer's text so far (grounding segments count it as one) and where the open text block began in it. */
  let allText = '';
  let blockStart = 0;
  let grounding: unknown;

  const fail = (error: GatewayError): IRStreamEvent[] => {
    done = true;
    return [{ type: 'error', error }];
  };

  const finish = (): IRStreamEvent[] => {
    done = true;
    const out: IRStreamEvent[] = [];
    // Search grounding arrives with the last chunk: the citations of the open text block, then the search.
    const search = groundingSearch(grounding, `ws_${key}`);
    if (search && blocks.get('t0')) {
      for (const c of groundingCitations(grounding, allText)) {
        if ((c.startIndex ?? 0) >= blockStart) out.push({ type: 'text-citation', id: 't0', citation: { ...c, startIndex: (c.startIndex ?? 0) - blockStart, endIndex: (c.endIndex ?? allText.length) - blockStart } });
      }
    }
    blocks.closeAll(out);
    if (search) out.push({ type: 'web-search-start', id: search.id }, { type: 'web-search-end', part: search });
    let reason: IRFinishReason = fromGeminiFinishReason(rawFinish, toolIndex > 0);
    if (rawFinish === undefined && blockReason) reason = { unified: 'content-filter', raw: blockReason };
    out.push({ type: 'finish', finishReason: reason, usage });
    return out;
  };

  return {
    event(ev: SSEEvent): IRStreamEvent[] {
      if (done || ev.data.trim() === '') return [];
      const json = parseJsonOr(ev.data);
      if (json === NOT_JSON) return fail(malformed());
      const failure = streamErrorOf(json);
      if (failure) return fail(failure);
      const parsed = generateContentResponseSchema.safeParse(json);
      if (!parsed.success) return fail(malformed());
      const chunk: GenerateContentResponseWire = parsed.data;
      const out: IRStreamEvent[] = [];
      if (chunk.usageMetadata) usage = fromGeminiUsage(chunk.usageMetadata);
      if (!started) {
        started = true;
        key = responseKeyOf(chunk.responseId);
        // The first chunk already counts the prompt: clients that read usage at the start (Anthropic message_start) get it.
        out.push({ type: 'message-start', id: chunk.responseId ?? `gemini-${key}`, model: chunk.modelVersion ?? 'unknown', ...(chunk.usageMetadata ? { usage } : {}) });
      }
      if (chunk.promptFeedback?.blockReason) blockReason = chunk.promptFeedback.blockReason;
      const candidate = chunk.candidates?.[0];
      for (const p of candidate?.content?.parts ?? []) {
        if (p.thought && (p.text !== undefined || p.thoughtSignature)) {
          blocks.close(out, 't0');
          blocks.open(out, 'r0', REASONING_BLOCK);
          if (p.text) out.push({ type: 'reasoning-delta', id: 'r0', delta: p.text });
          if (p.thoughtSignature) out.push({ type: 'reasoning-signature', id: 'r0', signature: p.thoughtSignature });
          continue;
        }
        const part = decodeResponsePart(p, key, toolIndex);
        if (!part) continue;
        if (part.type === 'tool-call') {
          blocks.close(out, 'r0');
          blocks.close(out, 't0');
          const index = toolIndex++;
          out.push({ type: 'tool-call-start', id: part.id, index, name: part.name });
          out.push({ type: 'tool-call-delta', id: part.id, index, delta: part.arguments });
          out.push({ type: 'tool-call-end', id: part.id, index });
        } else if (part.type === 'text') {
          blocks.close(out, 'r0');
          if (!blocks.get('t0')) blockStart = allText.length;
          blocks.open(out, 't0', TEXT_BLOCK);
          allText += part.text;
          out.push({ type: 'text-delta', id: 't0', delta: part.text });
        }
      }
      if (candidate?.finishReason) rawFinish = candidate.finishReason;
      const meta = (candidate as Record<string, unknown> | undefined)?.groundingMetadata;
      if (meta !== undefined) grounding = meta;
      return out;
    },
    end(): IRStreamEvent[] {
      if (done) return [];
      if (rawFinish !== undefined || blockReason !== undefined) return finish();
      return fail(streamEndedEarly('it finished'));
    },
  };
}
