/**
 * Gemini in, Gemini out. The client's body is forwarded byte for byte (the model is in the URL).
 * The upstream is always read as SSE; the client gets SSE or the JSON-array stream it asked for
 * (ResponseMeta options `sse`). Usage is observed from the last chunk that carries usageMetadata.
 */
import { GatewayError } from '../../errors.js';
import type { SSEEvent } from '../../http/sse.js';
import type { IRUsage } from '../../ir/types.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import { geminiErrorBody } from '../shared/error-bodies.js';
import type { UsageMetadataWire } from './gemini-api.js';
import { streamErrorOf } from './upstream/stream-decoder.js';
import { createGeminiFramer } from './client/stream-framing.js';
import { fromGeminiUsage } from './upstream/usage.js';
import { streamEndedEarly } from '../shared/stream-blocks.js';

export const geminiPassthrough: PassthroughCodec = {
  protocol: 'gemini',
  prepareBody(raw) {
    return raw;
  },
  finishSyncBody(json) {
    const meta = json.usageMetadata as UsageMetadataWire | undefined;
    return { body: json, usage: meta ? fromGeminiUsage(meta) : undefined, asSent: true };
  },
  createRelay({ options, traceId }): StreamRelay {
    const framer = createGeminiFramer(options);
    let usage: IRUsage | undefined;
    let finished = false;
    return {
      relay(ev: SSEEvent): string {
        let data = ev.data.trim();
        if (!data) return '';
        if (!finished && (data.includes('"finishReason"') || data.includes('"blockReason"'))) finished = true;
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
    };
  },
};
