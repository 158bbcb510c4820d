/**
 * The event sequence of a finished response, rebuilt from the stored object (`GET
 * /v1/responses/{id}?stream=true` on a response that was not recorded event by event): the same
 * lifecycle, added/delta/done chain per item and terminal event a live stream has, each delta
 * carrying the whole text.
 */
import type { StoredEvent } from '../../../wire/stored-event.js';
import type { Json } from './response-object.js';

const TERMINAL: Record<string, string> = { completed: 'response.completed', incomplete: 'response.incomplete', failed: 'response.failed' };

export function replayEvents(response: Json): StoredEvent[] {
  const out: StoredEvent[] = [];
  const emit = (type: string, payload: Json): void => {
    const seq = out.length;
    out.push({ seq, type, data: JSON.stringify({ type, sequence_number: seq, ...payload }) });
  };
  const pending = { ...response, status: 'in_progress', output: [], usage: null, completed_at: null, error: null, incomplete_details: null };
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  const items = Array.isArray(response.output) ? (response.output as Json[]) : [];
  items.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    switch (item.type) {
      case 'message': {
        const content = Array.isArray(item.content) ? (item.content as Json[]) : [];
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        content.forEach((part, content_index) => {
          const refusal = part.type === 'refusal';
          emit('response.content_part.added', { ...at, content_index, part: refusal ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [], logprobs: [] } });
          if (refusal) {
            emit('response.refusal.delta', { ...at, content_index, delta: part.refusal });
            emit('response.refusal.done', { ...at, content_index, refusal: part.refusal });
          } else {
            emit('response.output_text.delta', { ...at, content_index, delta: part.text, logprobs: [] });
            const annotations = Array.isArray(part.annotations) ? part.annotations : [];
            annotations.forEach((annotation, annotation_index) => emit('response.output_text.annotation.added', { ...at, content_index, annotation_index, annotation }));
            emit('response.output_text.done', { ...at, content_index, text: part.text, logprobs: [] });
          }
          emit('response.content_part.done', { ...at, content_index, part });
        });
        break;
      }
      case 'function_call':
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        emit('response.function_call_arguments.delta', { ...at, delta: item.arguments });
        emit('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments });
        break;
      case 'custom_tool_call':
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', input: '' } });
        emit('response.custom_tool_call_input.delta', { ...at, delta: item.input });
        emit('response.custom_tool_call_input.done', { ...at, input: item.input });
        break;
      case 'web_search_call':
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', action: { type: 'search' } } });
        emit('response.web_search_call.in_progress', at);
        emit('response.web_search_call.searching', at);
        if (item.status === 'completed') emit('response.web_search_call.completed', at);
        break;
      case 'reasoning': {
        const summary = Array.isArray(item.summary) ? (item.summary as Json[]) : [];
        const { encrypted_content: _hidden, ...start } = item;
        emit('response.output_item.added', { output_index, item: { ...start, summary: [] } });
        summary.forEach((part, summary_index) => {
          emit('response.reasoning_summary_part.added', { ...at, summary_index, part: { type: 'summary_text', text: '' } });
          emit('response.reasoning_summary_text.delta', { ...at, summary_index, delta: part.text });
          emit('response.reasoning_summary_text.done', { ...at, summary_index, text: part.text });
          emit('response.reasoning_summary_part.done', { ...at, summary_index, part });
        });
        break;
      }
      default:
        emit('response.output_item.added', { output_index, item });
    }
    emit('response.output_item.done', { output_index, item });
  });
  const terminal = TERMINAL[String(response.status)];
  if (terminal) emit(terminal, { response });
  return out;
}
