import type { GatewayError } from '../../../errors.js';
import { sseFrame } from '../../../http/sse.js';
import type { IRStreamEvent } from '../../../ir/types.js';
import type { ResponseMeta, StreamEncoder } from '../../types.js';
import { openAIErrorFrame } from '../errors.js';
import { toOpenAIFinishReason } from './map-finish-reason.js';
import { toOpenAIUsage } from './usage.js';

/** IR events -> chat.completion.chunk frames; `options.includeUsage` adds the final usage chunk. */
export function createOpenAIChatStreamEncoder(meta: ResponseMeta): StreamEncoder {
  const includeUsage = meta.options?.includeUsage === true;
  let id = meta.newId('chatcmpl-');
  let model = meta.requestedModel;
  let started = false;
  let finished = false;

  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
    sseFrame(JSON.stringify({ id, object: 'chat.completion.chunk', created: meta.created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] }));

  const start = (): string => {
    if (started) return '';
    started = true;
    return chunk({ role: 'assistant', content: '' });
  };

  return {
    encode(ev: IRStreamEvent): string {
      switch (ev.type) {
        case 'message-start':
          if (ev.id) id = ev.id.startsWith('chatcmpl') ? ev.id : `chatcmpl-${ev.id}`;
          if (ev.model) model = ev.model;
          return start();
        case 'text-delta':
          return ev.delta ? start() + chunk({ content: ev.delta }) : '';
        case 'reasoning-delta':
          return ev.delta ? start() + chunk({ reasoning_content: ev.delta }) : '';
        case 'tool-call-start':
          return start() + chunk({ tool_calls: [{ index: ev.index, id: ev.id, type: 'function', function: { name: ev.name, arguments: '' } }] });
        case 'tool-call-delta':
          return ev.delta ? chunk({ tool_calls: [{ index: ev.index, function: { arguments: ev.delta } }] }) : '';
        case 'finish': {
          if (finished) return '';
          finished = true;
          let out = start() + chunk({}, toOpenAIFinishReason(ev.finishReason));
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
