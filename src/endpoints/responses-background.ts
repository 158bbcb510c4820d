/**
 * `background: true` Responses runs, on the shared background runner (conversations/background-runs.ts):
 * the record is stored as `queued`, the upstream call runs detached and streamed, its events are
 * recorded by `sequence_number`, and the final response object replaces the record.
 */
import type { BackgroundJob } from '../conversations/background-runs.js';
import { responseErrorCode } from '../protocols/openai-responses/errors.js';
import type { Json } from '../protocols/openai-responses/client/response-object.js';
import type { EndpointContext, GatewayServices } from './services.js';
import { requestLimits } from '../limits/admission.js';
import { settleRequest } from '../limits/request-lease.js';
import { runChat } from './chat-pipeline.js';
import { turnRecord, type ResponsesTurn } from './responses-turn.js';

function responsesJob(ctx: EndpointContext, turn: ResponsesTurn, queued: Json): BackgroundJob<EndpointContext> {
  // A stream of the run opens at once with this event; the run's own events continue at 1.
  const created = JSON.stringify({ type: 'response.created', sequence_number: 0, response: queued });
  return {
    id: turn.id,
    queued: turnRecord(ctx, turn, queued),
    initialEvents: [{ seq: 0, type: 'response.created', data: created }],
    run(detached, record) {
      let count = 0;
      turn.sink.onEvent = (type, data) => {
        const seq = Number((JSON.parse(data) as { sequence_number?: unknown }).sequence_number);
        record({ seq: Number.isFinite(seq) ? seq : count, type, data });
        count++;
      };
      return runChat(detached, turn.call(true));
    },
    settled: () => settleRequest(requestLimits(ctx), turn.model.pricing, undefined),
    finished(r) {
      const final = turn.sink.final;
      return final ? { ...turnRecord(ctx, turn, final, r.inputItems), version: r.version } : undefined;
    },
    transition(r, status, why) {
      if (status !== 'failed' || !why) return { ...r, status, object: { ...r.object, status } };
      return { ...r, status, object: { ...r.object, status, error: { code: responseErrorCode(why), message: why.message } } };
    },
  };
}

export class BackgroundResponses {
  constructor(private readonly rt: GatewayServices) {}

  /** Stores the queued record and starts the run; resolves once the record is stored. */
  start(ctx: EndpointContext, turn: ResponsesTurn, queued: Json): Promise<void> {
    return this.rt.backgroundRuns.start(ctx, responsesJob(ctx, turn, queued));
  }

  /** Aborts a run of this instance; false when it does not run here. */
  cancelLocal(id: string): boolean {
    return this.rt.backgroundRuns.cancelLocal(id);
  }
}

/** The Responses view of the runtime's background runner. */
export function backgroundResponses(rt: GatewayServices): BackgroundResponses {
  return new BackgroundResponses(rt);
}
