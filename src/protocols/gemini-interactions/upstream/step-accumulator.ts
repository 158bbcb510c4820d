/**
 * Gemini's Interactions event stream -> the interaction it describes, for storing a passed-through
 * stream: `interaction.completed` carries the final status and usage but not the steps, so steps
 * are rebuilt from `step.start` (initial state) and `step.delta`s (text appended to the last text
 * content, thought summaries, signatures, function-call arguments accumulated as JSON text and
 * parsed at `step.stop`). Unknown event and delta types are tolerated (the API adds them).
 */
import type { Json } from '../gemini-interactions-api.js';
import { isJsonObject } from '../../shared/json.js';


function appendContent(list: Json[], c: Json): void {
  const last = list[list.length - 1];
  if (c.type === 'text' && last?.type === 'text' && typeof c.text === 'string') last.text = `${String(last.text ?? '')}${c.text}`;
  else list.push({ ...c });
}

export interface StepAccumulator {
  /** Feeds one parsed event. */
  event(json: Json): void;
  /** The interaction's last lifecycle fields (id, status, model, created, updated, usage, ...). */
  lifecycle(): Json;
  /** The output steps so far. */
  steps(): Json[];
  usage(): unknown;
}

export function createStepAccumulator(): StepAccumulator {
  const steps: Json[] = [];
  const args = new Map<number, string>();
  let base: Json = {};
  let usage: unknown;

  const applyDelta = (step: Json, index: number, delta: Json): void => {
    const { type, ...rest } = delta;
    switch (type) {
      case 'text':
      case 'image':
      case 'audio':
      case 'video':
      case 'document': {
        if (!Array.isArray(step.content)) step.content = [];
        appendContent(step.content as Json[], delta);
        return;
      }
      case 'thought_summary': {
        if (!Array.isArray(step.summary)) step.summary = [];
        if (isJsonObject(delta.content)) appendContent(step.summary as Json[], delta.content);
        return;
      }
      case 'thought_signature':
        if (typeof delta.signature === 'string') step.signature = delta.signature;
        return;
      case 'arguments_delta':
        args.set(index, (args.get(index) ?? '') + (typeof delta.arguments === 'string' ? delta.arguments : ''));
        return;
      default:
        // Server-tool and result deltas carry the step's fields.
        Object.assign(step, rest);
    }
  };

  return {
    event(json) {
      const index = typeof json.index === 'number' ? json.index : -1;
      switch (json.event_type) {
        case 'interaction.created':
        case 'interaction.completed':
          if (isJsonObject(json.interaction)) {
            base = { ...base, ...json.interaction };
            if (json.interaction.usage !== undefined) usage = json.interaction.usage;
          }
          return;
        case 'interaction.status_update':
          if (typeof json.status === 'string') base.status = json.status;
          if (json.usage !== undefined) usage = json.usage;
          return;
        case 'step.start':
          if (index >= 0 && isJsonObject(json.step)) steps[index] = structuredClone(json.step);
          return;
        case 'step.delta': {
          const step = steps[index];
          if (step && isJsonObject(json.delta)) applyDelta(step, index, json.delta);
          if (isJsonObject(json.metadata) && json.metadata.total_usage !== undefined) usage = json.metadata.total_usage;
          return;
        }
        case 'step.stop': {
          const step = steps[index];
          const text = args.get(index);
          if (step && text !== undefined) {
            args.delete(index);
            try {
              const parsed = JSON.parse(text) as unknown;
              if (isJsonObject(parsed)) step.arguments = parsed;
            } catch {
              step.arguments = {};
            }
          }
          return;
        }
      }
    },
    lifecycle: () => ({ ...base }),
    steps: () => steps.filter((s): s is Json => s !== undefined),
    usage: () => usage,
  };
}
