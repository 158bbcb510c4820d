/** IR response -> the interaction object (POST returns only this turn's output steps). */
import type { IRChatResponse, IRWarning } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import type { Json } from '../gemini-interactions-api.js';
import { outputSteps } from './ir-steps.js';
import { answeredBy, buildInteraction, interactionsOptions, statusOfFinish, toInteractionsUsage } from './interaction-object.js';

export function encodeInteractionResponse(res: IRChatResponse, meta: ResponseMeta, warnings: IRWarning[]): Json {
  const opts = answeredBy(interactionsOptions(meta), res.model || meta.upstreamModel);
  const steps = outputSteps(res.content, opts.origin, opts.hideThoughtSummaries);
  const { status, errors } = statusOfFinish(res.finishReason, steps.some((s) => s.type === 'function_call'));
  const usage = toInteractionsUsage(res.usage);
  const object = buildInteraction(
    opts,
    { status, steps, updatedMs: opts.now(), ...(usage ? { usage } : {}), ...(errors ? { errors } : {}), ...(warnings.length ? { warnings } : {}) },
    meta.traceId,
  );
  opts.sink.final = object;
  return object;
}
