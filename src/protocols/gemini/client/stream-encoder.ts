/**
 * IR events -> Gemini stream chunks for the client, framed as SSE (`alt=sse`) or as one JSON array
 * (ResponseMeta.options.sse === false). Gemini never streams function call arguments: a call's
 * deltas are buffered until tool-call-end and sent as one `functionCall` part. The last chunk
 * carries finishReason and usageMetadata; a failure after the start is an in-band error object.
 */
import type { GatewayError } from '../../../core/errors.js';
import type { IRStreamEvent, IRUsage } from '../../../ir/types.js';
import type { ResponseMeta, StreamEncoder } from '../../types.js';
import { argsObject } from './encode-response.js';
import { geminiErrorBody } from '../../shared/error-bodies.js';
import { toGeminiFinishReason } from './map-finish-reason.js';
import { createGeminiFramer } from './stream-framing.js';
import { thoughtSignatureFor } from './thought-signature.js';
import { toGeminiUsage } from './usage.js';
import type { Json } from '../../shared/json.js';

export function createGeminiStreamEncoder(meta: ResponseMeta): StreamEncoder {
  const framer = createGeminiFramer(meta.options);
  let responseId = meta.newId('');
  let modelVersion = meta.upstreamModel;
  let usage: IRUsage | undefined;
  let finished = false;
  let malformed = false;
  const calls = new Map<number, { id: string; name: string; args: string }>();
  /** Each reasoning block's text so far: another vendor's signature travels with the text it signs. */
  const thoughts = new Map<string, string>();
  /** The client asked for thought parts; without, a reasoning's signature rides on the next part. */
  const showThoughts = meta.options?.thoughts !== false;
  let pendingSignature: string | undefined;
  const signed = (part: Json): Json => {
    if (pendingSignature === undefined) return part;
    part.thoughtSignature = pendingSignature;
    pendingSignature = undefined;
    return part;
  };

  const chunk = (parts: Json[], finishReason?: string): string => {
    const candidate: Json = { content: { parts, role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 };
    const body: Json = { candidates: [candidate] };
    const u = toGeminiUsage(usage);
    if (u) body.usageMetadata = u;
    body.modelVersion = modelVersion;
    body.responseId = responseId;
    return framer.chunk(JSON.stringify(body));
  };

  return {
    encode(ev: IRStreamEvent): string {
      if (finished) return '';
      switch (ev.type) {
        case 'message-start':
          if (ev.id) responseId = ev.id;
          if (ev.model) modelVersion = ev.model;
          if (ev.usage) usage = ev.usage;
          return '';
        case 'text-delta':
          return ev.delta ? chunk([signed({ text: ev.delta })]) : '';
        case 'reasoning-delta':
          if (!ev.delta) return '';
          thoughts.set(ev.id, (thoughts.get(ev.id) ?? '') + ev.delta);
          return showThoughts ? chunk([{ text: ev.delta, thought: true }]) : '';
        case 'reasoning-signature': {
          const thoughtSignature = thoughtSignatureFor({ type: 'reasoning', text: thoughts.get(ev.id) ?? '', signature: ev.signature }, meta.upstream);
          if (!showThoughts) {
            if (thoughtSignature) pendingSignature = thoughtSignature;
            return '';
          }
          return thoughtSignature ? chunk([{ text: '', thought: true, thoughtSignature }]) : '';
        }
        case 'reasoning-end':
          thoughts.delete(ev.id);
          return '';
        case 'tool-call-start':
          calls.set(ev.index, { id: ev.id, name: ev.name, args: '' });
          return '';
        case 'tool-call-delta': {
          const call = calls.get(ev.index);
          if (call) call.args += ev.delta;
          return '';
        }
        case 'tool-call-end': {
          const call = calls.get(ev.index);
          calls.delete(ev.index);
          if (!call) return '';
          const args = argsObject(call.args);
          if (!args) {
            malformed = true;
            return '';
          }
          return chunk([signed({ functionCall: { id: call.id, name: call.name, args } })]);
        }
        case 'usage':
          usage = ev.usage;
          return '';
        case 'finish': {
          usage = ev.usage;
          let out = '';
          // Calls the upstream never closed still go out whole.
          for (const index of [...calls.keys()]) out += this.encode({ type: 'tool-call-end', id: calls.get(index)?.id ?? '', index });
          finished = true;
          const reason = malformed ? 'MALFORMED_FUNCTION_CALL' : toGeminiFinishReason(ev.finishReason);
          return out + chunk([signed({ text: '' })], reason);
        }
        case 'error':
          return this.error(ev.error);
        default:
          return '';
      }
    },
    end(): string {
      return framer.end();
    },
    error(err: GatewayError): string {
      finished = true;
      return framer.chunk(JSON.stringify(geminiErrorBody(err, meta.traceId))) + framer.end();
    },
  };
}
