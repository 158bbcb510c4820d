/**
 * Gemini in, Gemini out. The client's body is forwarded byte for byte (the model is in the URL).
 * The upstream is always read as SSE; the client gets SSE or the JSON-array stream it asked for
 * (ResponseMeta options `sse`). Usage is observed from the last chunk that carries usageMetadata.
 * Parts whose thought signature is a gateway token (another vendor's reasoning, from turns that
 * model answered) are left out: Gemini cannot check them and would refuse the request.
 */
import { GatewayError } from '../../core/errors.js';
import type { SSEEvent } from '../../wire/sse.js';
import type { IRFinishReason, IRUsage } from '../../ir/types.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import { geminiErrorBody } from '../shared/error-bodies.js';
import type { UsageMetadataWire } from './gemini-api.js';
import { streamErrorOf } from './upstream/stream-decoder.js';
import { createGeminiFramer } from './client/stream-framing.js';
import { fromGeminiUsage } from './upstream/usage.js';
import { fromGeminiFinishReason } from './upstream/map-finish-reason.js';
import { streamEndedEarly } from '../shared/stream-blocks.js';
import { isJsonObject } from '../shared/json.js';
import { isGatewayReasoningTokenBytes, mayHoldReasoningTokenBytes } from '../shared/reasoning-token.js';
import { SKIP_SIGNATURE } from './upstream/tool-call-ids.js';

/**
 * A content without another vendor's reasoning (a gateway token as thought signature): a thought
 * part carrying one goes; a text or function call part that carries one (handed to a client that
 * did not ask for thought parts) stays without it, a call with the signature Gemini takes for
 * calls it did not make (as the translated path sends them).
 */
function withoutForeignThoughts(content: unknown): unknown {
  if (!isJsonObject(content) || !Array.isArray(content.parts)) return content;
  const foreign = (p: unknown): boolean => isJsonObject(p) && (isGatewayReasoningTokenBytes(p.thoughtSignature as string) || isGatewayReasoningTokenBytes(p.thought_signature as string));
  if (!content.parts.some(foreign)) return content;
  const parts: unknown[] = [];
  for (const p of content.parts) {
    if (!foreign(p)) parts.push(p);
    else if (isJsonObject(p) && p.thought !== true) {
      const { thoughtSignature: _a, thought_signature: _b, ...rest } = p;
      if (rest.functionCall !== undefined || rest.function_call !== undefined) rest.thoughtSignature = SKIP_SIGNATURE;
      parts.push(rest);
    }
  }
  return { ...content, parts };
}

const FINISH_REASON = /"finishReason"\s*:\s*"([^"]*)"/;
const BLOCK_REASON = /"blockReason"\s*:\s*"([^"]*)"/;

/** The finish a chunk (or a whole answer) tells: its finishReason, or a blocked prompt's blockReason. */
function finishIn(data: string, calledFunctions: boolean): IRFinishReason | undefined {
  const finish = FINISH_REASON.exec(data)?.[1];
  if (finish !== undefined) return fromGeminiFinishReason(finish, calledFunctions);
  const blocked = BLOCK_REASON.exec(data)?.[1];
  return blocked !== undefined ? { unified: 'content-filter', raw: blocked } : undefined;
}

export const geminiPassthrough: PassthroughCodec = {
  protocol: 'gemini',
  prepareBody(raw, parsed) {
    if (!mayHoldReasoningTokenBytes(raw) || !Array.isArray(parsed.contents)) return raw;
    const contents = parsed.contents.map(withoutForeignThoughts).filter((c) => !(isJsonObject(c) && Array.isArray(c.parts) && c.parts.length === 0));
    return JSON.stringify({ ...parsed, contents });
  },
  isAnswer: (json) => Array.isArray(json.candidates) || isJsonObject(json.promptFeedback),
  finishSyncBody(json) {
    const meta = json.usageMetadata as UsageMetadataWire | undefined;
    const candidate = (Array.isArray(json.candidates) ? json.candidates[0] : undefined) as { finishReason?: unknown; content?: { parts?: unknown } } | undefined;
    const called = Array.isArray(candidate?.content?.parts) && candidate.content.parts.some((p) => isJsonObject(p) && p.functionCall !== undefined);
    const blocked = isJsonObject(json.promptFeedback) && typeof json.promptFeedback.blockReason === 'string' ? json.promptFeedback.blockReason : undefined;
    const finishReason = typeof candidate?.finishReason === 'string' ? fromGeminiFinishReason(candidate.finishReason, called) : blocked ? { unified: 'content-filter' as const, raw: blocked } : undefined;
    return { body: json, usage: meta ? fromGeminiUsage(meta) : undefined, asSent: true, ...(finishReason ? { finishReason } : {}) };
  },
  createRelay({ options, traceId }): StreamRelay {
    const framer = createGeminiFramer(options);
    let usage: IRUsage | undefined;
    let finished = false;
    let calledFunctions = false;
    let finish: IRFinishReason | undefined;
    return {
      relay(ev: SSEEvent): string {
        let data = ev.data.trim();
        if (!data) return '';
        if (!calledFunctions && data.includes('"functionCall"')) calledFunctions = true;
        if (!finished && (data.includes('"finishReason"') || data.includes('"blockReason"'))) {
          finished = true;
          finish = finishIn(data, calledFunctions);
        }
        // Parse only what needs it: usage, a possible error chunk, multi-line data.
        if (data.includes('"usageMetadata"') || data.includes('"error"') || data.includes('\n')) {
          let chunk: { usageMetadata?: UsageMetadataWire };
          try {
            chunk = JSON.parse(data) as { usageMetadata?: UsageMetadataWire };
          } catch {
            return '';
          }
          // Rethrown so the pipeline reports the failure and writes it in-band, credentials scrubbed.
          const failure = streamErrorOf(chunk);
          if (failure) throw failure;
          if (chunk.usageMetadata) usage = fromGeminiUsage(chunk.usageMetadata);
          // One line per event for js-genai.
          if (data.includes('\n')) data = JSON.stringify(chunk);
        }
        return framer.chunk(data);
      },
      // A stream that closes before any finishReason must not look like a complete answer.
      end(): string {
        if (!finished) throw streamEndedEarly('the answer was complete');
        return framer.end();
      },
      error(err: GatewayError): string {
        return framer.chunk(JSON.stringify(geminiErrorBody(err, traceId))) + framer.end();
      },
      usage: () => usage,
      finishReason: () => finish,
    };
  },
};
