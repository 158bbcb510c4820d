/**
 * Gemini in, Gemini out. The client's body is forwarded byte for byte (the model is in the URL).
 * The upstream is always read as SSE; the client gets SSE or the JSON-array stream it asked for
 * (ResponseMeta options `sse`). Usage is observed from the last chunk that carries usageMetadata.
 */
import type { GatewayError } from '../../errors.js';
import type { SSEEvent } from '../../http/sse.js';
import type { IRUsage } from '../../ir/types.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import { geminiErrorObject } from './errors.js';
import type { UsageMetadataWire } from './gemini-api.js';
import { createGeminiFramer } from './stream-framing.js';
import { fromGeminiUsage } from './usage.js';

export const geminiPassthrough: PassthroughCodec = {
  protocol: 'gemini',
  prepareBody(raw) {
    return raw;
  },
  finishSyncBody(json) {
    const meta = json.usageMetadata as UsageMetadataWire | undefined;
    return { body: json, usage: meta ? fromGeminiUsage(meta) : undefined };
  },
  createRelay({ options }): StreamRelay {
    const framer = createGeminiFramer(options);
    let usage: IRUsage | undefined;
    return {
      relay(ev: SSEEvent): string {
        let data = ev.data.trim();
        if (!data) return '';
        const hasUsage = data.includes('"usageMetadata"');
        // One line per event for js-genai; multi-line data is re-serialized.
        if (hasUsage || data.includes('\n')) {
          try {
            const chunk = JSON.parse(data) as { usageMetadata?: UsageMetadataWire };
            if (chunk.usageMetadata) usage = fromGeminiUsage(chunk.usageMetadata);
            if (data.includes('\n')) data = JSON.stringify(chunk);
          } catch {
            return '';
          }
        }
        return framer.chunk(data);
      },
      end: () => framer.end(),
      error(err: GatewayError): string {
        return framer.chunk(JSON.stringify(geminiErrorObject(err))) + framer.end();
      },
      usage: () => usage,
    };
  },
};
