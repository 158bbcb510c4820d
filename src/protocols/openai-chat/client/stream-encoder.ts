import type { GatewayError } from '../../../core/errors.js';
import { sseFrame } from '../../../wire/sse.js';
import type { IRStreamEvent } from '../../../ir/types.js';
import type { ResponseMeta, StreamEncoder } from '../../types.js';
import { openAIErrorFrame } from '../errors.js';
import { toOpenAIFinishReason } from './map-finish-reason.js';
import { toOpenAIUsage } from './usage.js';

/** IR events -> chat.completion.chunk frames; `options.includeUsage` adds the final usage chunk. */
export function createOpenAIChatStreamEncoder(meta: ResponseMeta): StreamEncoder {
  const includeUsage = meta.options?.includeUsage === true;
  let id = meta.newId('chatcmpl-');
  let model = meta.upstreamModel;
  let started = false;
  let finished = false;

  // Every chunk is the same JSON around its delta: the text before the delta is built once per
  // stream (again if message-start renames it), the delta is the only part stringified per event.
  let head = '';
  const chunk = (deltaJson: string, finishReason: string | null = null): string => {
    head ||= `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(meta.created)},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":`;
    return `${head}${deltaJson},"logprobs":null,"finish_reason":${finishReason === null ? 'null' : JSON.stringify(finishReason)}}]}\n\n`;
  };

  const start = (): string => {
    if (started) return '';
    started = true;
    return chunk('{"role":"assistant","content":""}');
  };

  return {
    encode(ev: IRStreamEvent): string {
      switch (ev.type) {
        case 'message-start':
          if (ev.id) id = ev.id.startsWith('chatcmpl') ? ev.id : `chatcmpl-${ev.id}`;
          if (ev.model) model = ev.model;
          head = '';
          return start();
        case 'text-delta':
          return ev.delta ? start() + chunk(`{"content":${JSON.stringify(ev.delta)}}`) : '';
        case 'reasoning-delta':
          return ev.delta ? start() + chunk(`{"reasoning_content":${JSON.stringify(ev.delta)}}`) : '';
        case 'tool-call-start':
          return start() + chunk(JSON.stringify({ tool_calls: [{ index: ev.index, id: ev.id, type: 'function', function: { name: ev.name, arguments: '' } }] }));
        case 'tool-call-delta':
          return ev.delta ? chunk(`{"tool_calls":[{"index":${JSON.stringify(ev.index)},"function":{"arguments":${JSON.stringify(ev.delta)}}}]}`) : '';
        case 'finish': {
          if (finished) return '';
          finished = true;
          let out = start() + chunk('{}', toOpenAIFinishReason(ev.finishReason));
          if (includeUsage) {
            const usage = toOpenAIUsage(ev.usage) ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
            out += sseFrame(JSON.stringify({ id, object: 'chat.completion.chunk', created: meta.created, model, choices: [], usage }));
          }
          return out;
        }
        case 'error':
          return this.error(ev.error);
        default:
          return '';
      }
    },
    end(): string {
      return 'data: [DONE]\n\n';
    },
    error(err: GatewayError): string {
      finished = true;
      return openAIErrorFrame(err, meta.traceId);
    },
  };
}
