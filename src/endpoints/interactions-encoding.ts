/**
 * The Interactions API's encoding of stored turns (endpoints/stateful-turn.ts runs them): records
 * by `interactionRecord`, a streamed interaction's events kept with it, a background run answered
 * as `in_progress` (stored as queued), every object stamped `updated`, failures as `errors`, streams
 * ending with `event: done`, and a cancel reaching Gemini's own copy of a pass-through run.
 * Translation errors name the Interactions request's fields (the Gemini error shape has no `param`).
 */
import { GatewayError } from '../core/errors.js';
import { answeredBy, buildInteraction, isoTime } from '../protocols/gemini-interactions/client/interaction-object.js';
import { replayInteractionEvents } from '../protocols/gemini-interactions/client/replay-events.js';
import { DONE_FRAME } from '../protocols/gemini-interactions/client/stream-encoder.js';
import { interactionsError } from '../protocols/gemini-interactions/errors.js';
import type { Json } from '../protocols/gemini-interactions/gemini-interactions-api.js';
import { codecFor } from '../protocols/registry.js';
import { upstreamTarget } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { ownValue } from '../core/own-key.js';
import type { Reply } from '../reply/reply.js';
import { runChat, type ChatCall } from './chat-pipeline.js';
import { interactionRecord, type InteractionTurn } from './interactions-turn.js';
import { upstreamInteractionCall } from './stored-upstream.js';
import type { TurnEncoding } from './stateful-turn.js';

/** IR field names in errors of the upstream encoders -> the Interactions request's names. */
const PARAMS: Record<string, string> = {
  messages: 'input',
  system: 'system_instruction',
  stop: 'generation_config.stop_sequences',
  temperature: 'generation_config.temperature',
  top_p: 'generation_config.top_p',
  top_k: 'generation_config',
  seed: 'generation_config.seed',
  max_tokens: 'generation_config.max_output_tokens',
  reasoning: 'generation_config.thinking_level',
  tool_choice: 'generation_config.tool_choice',
};

/** The Gemini error shape has no `param`: the message names the request field instead. */
export function inRequestTerms(err: unknown): unknown {
  if (!(err instanceof GatewayError) || !err.param || err.status >= 500) return err;
  const head = /^[a-z_]+/.exec(err.param)?.[0] ?? '';
  const mapped = ownValue(PARAMS, head) ?? err.param;
  if (err.message.includes(mapped)) return err;
  return new GatewayError(err.code, `${err.message} (field: ${mapped})`, {
    param: mapped,
    status: err.status,
    ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
    ...(err.detail !== undefined ? { detail: err.detail } : {}),
  });
}

/** runChat, with translation errors naming the Interactions fields. */
async function runInteraction(ctx: EndpointContext, call: ChatCall): Promise<Reply> {
  try {
    return await runChat(ctx, call);
  } catch (err) {
    throw inRequestTerms(err);
  }
}

export const INTERACTION_TURNS: TurnEncoding<InteractionTurn> = {
  noun: 'interaction',
  // Kept for resuming (`last_event_id`) a streamed interaction.
  keepsStreamEvents: true,
  streamEnd: DONE_FRAME,
  run: runInteraction,
  record: (ctx, turn, object) => interactionRecord(ctx, turn, object),
  queued(ctx, turn) {
    // Named by the model the upstream is asked for until the run's answer names the concrete version.
    const named = answeredBy({ interactionId: turn.id, createdAtMs: turn.createdAtMs, echo: turn.echo }, turn.model.upstreamModel);
    return { object: buildInteraction(named, { status: 'in_progress', steps: [], updatedMs: turn.createdAtMs }, ctx.traceId) };
  },
  eventSeq: (_data, count) => count,
  withStatus(ctx, object, status, why) {
    const next: Json = { ...object, status, updated: isoTime(ctx.services.now()) };
    if (why) next.errors = [interactionsError(why)];
    return next;
  },
  replay: replayInteractionEvents,
  checkBackground(turn) {
    if (turn.passthrough) return;
    // What the upstream cannot express is the caller's 400 now, not a failed run later.
    const call = turn.call(true);
    try {
      if (call.ir) codecFor(turn.model.provider.chatProtocol).upstream.encodeRequest(call.ir, turn.model.upstreamModel, upstreamTarget(turn.model));
    } catch (err) {
      throw inRequestTerms(err);
    }
  },
  async onCancel(ctx, turn) {
    // A Gemini background interaction keeps running when its stream closes: cancel it there too.
    const upstreamId = turn.sink.upstreamId;
    if (!turn.passthrough || !upstreamId) return;
    await upstreamInteractionCall(ctx, turn.model.provider, upstreamId, 'cancel');
  },
};
