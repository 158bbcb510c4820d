/**
 * The Responses API's encoding of stored turns (endpoints/stateful-turn.ts runs them): records
 * by `turnRecord`, a background run answered and stored as `queued` and opening its stream with
 * `response.created`, events numbered by their `sequence_number`, a finished response without
 * recorded events replayed from its object.
 */
import type { ConversationRecord } from '../conversations/conversation-store.js';
import { buildResponseObject, type Json } from '../protocols/openai-responses/client/response-object.js';
import { replayEvents } from '../protocols/openai-responses/client/replay-events.js';
import { responseErrorCode } from '../protocols/openai-responses/errors.js';
import { runChat } from './chat-pipeline.js';
import type { TurnEncoding } from './stateful-turn.js';
import { turnRecord, type ResponsesTurn } from './responses-turn.js';

export const RESPONSES_TURNS: TurnEncoding<ResponsesTurn> = {
  noun: 'response',
  // A streamed response is replayed from its object; only background runs record their events.
  keepsStreamEvents: false,
  streamEnd: '',
  run: runChat,
  // A finished background run keeps the input item ids minted when it was queued.
  record: (ctx, turn, object, queued?: ConversationRecord) => turnRecord(ctx, turn, object, queued?.inputItems),
  queued(ctx, turn) {
    const object = buildResponseObject(
      { responseId: turn.id, createdAt: Math.floor(turn.createdAtMs / 1000), echo: turn.echo },
      { status: 'queued', model: turn.model.upstreamModel, output: [] },
      ctx.traceId,
    );
    // A stream of the run opens at once with this event; the run's own events continue at 1.
    const created = JSON.stringify({ type: 'response.created', sequence_number: 0, response: object });
    return { object, events: [{ seq: 0, type: 'response.created', data: created }] };
  },
  eventSeq(data, count) {
    const seq = Number((JSON.parse(data) as { sequence_number?: unknown }).sequence_number);
    return Number.isFinite(seq) ? seq : count;
  },
  withStatus(_ctx, object, status, why) {
    const next: Json = { ...object, status };
    if (why) next.error = { code: responseErrorCode(why), message: why.message };
    return next;
  },
  replay: replayEvents,
};
