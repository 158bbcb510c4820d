import type { IRFinishReason } from '../../../ir/types.js';

export function toOpenAIFinishReason(reason: IRFinishReason): 'stop' | 'length' | 'tool_calls' | 'content_filter' {
  switch (reason.unified) {
    case 'length': return 'length';
    case 'tool-calls': return 'tool_calls';
    case 'content-filter': return 'content_filter';
    default: return 'stop';
  }
}
