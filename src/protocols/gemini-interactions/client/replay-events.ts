/**
 * The event sequence of a finished interaction, rebuilt from the stored object (`GET
 * /v1beta/interactions/{id}?stream=true` on an interaction that was created without a stream, so
 * none was recorded): the lifecycle and step events a live stream has, each step's content in one
 * delta, event ids by position.
 */
import type { StoredEvent } from '../../../wire/stored-event.js';
import type { Json } from '../gemini-interactions-api.js';

const LIFECYCLE_FIELDS = ['id', 'object', 'status', 'model', 'agent', 'created', 'updated'];

function lifecycle(object: Json, status: unknown, withUsage: boolean): Json {
  const out: Json = {};
  for (const k of LIFECYCLE_FIELDS) if (object[k] !== undefined) out[k] = object[k];
  out.status = status;
  if (withUsage && object.usage !== undefined) out.usage = object.usage;
  return out;
}

export function replayInteractionEvents(object: Json): StoredEvent[] {
  const out: StoredEvent[] = [];
  const emit = (type: string, payload: Json): void => {
    const seq = out.length;
    out.push({ seq, type, data: JSON.stringify({ ...payload, event_type: type, event_id: String(seq) }) });
  };
  emit('interaction.created', { interaction: lifecycle(object, 'in_progress', false) });
  const steps = Array.isArray(object.steps) ? (object.steps as Json[]) : [];
  steps.forEach((step, index) => {
    const delta = (d: Json): void => emit('step.delta', { index, delta: d });
    switch (step.type) {
      case 'model_output': {
        emit('step.start', { index, step: { type: 'model_output', content: [] } });
        for (const c of Array.isArray(step.content) ? (step.content as Json[]) : []) delta(c);
        break;
      }
      case 'thought': {
        emit('step.start', { index, step: { type: 'thought', summary: [] } });
        for (const c of Array.isArray(step.summary) ? (step.summary as Json[]) : []) delta({ type: 'thought_summary', content: c });
        if (typeof step.signature === 'string' && step.signature) delta({ type: 'thought_signature', signature: step.signature });
        break;
      }
      case 'function_call':
        emit('step.start', { index, step: { ...step, arguments: {} } });
        delta({ type: 'arguments_delta', arguments: JSON.stringify(step.arguments ?? {}) });
        break;
      default:
        emit('step.start', { index, step });
    }
    emit('step.stop', { index });
  });
  if (object.status === 'failed') {
    const errors = Array.isArray(object.errors) ? (object.errors as Json[]) : [];
    emit('error', { error: errors[0] ?? { code: 'INTERNAL', message: 'The interaction failed.' } });
  } else emit('interaction.completed', { interaction: lifecycle(object, object.status, true) });
  return out;
}
