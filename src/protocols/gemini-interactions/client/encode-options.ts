/** The per-request options the Interactions encoders take beyond the IR (ResponseMeta.options.interactions), set by the endpoint. */
import type { ProtocolName } from '../../../ir/types.js';
import type { Json } from '../gemini-interactions-api.js';

/** Receives what an interaction produced, for storing it (filled by the encoders and the relay). */
export interface InteractionsSink {
  /** Every event of a stream, serialized, in order (stored streams and background runs record them). */
  onEvent?: (type: string, data: string) => void;
  /** The final interaction object (output steps only), once known. */
  final?: Json;
  /** The upstream's own interaction id (pass-through to Gemini). */
  upstreamId?: string;
}

/** What the encoders need besides the IR: set by the endpoint under `ResponseMeta.options.interactions`. */
export interface InteractionsEncodeOptions {
  /** The gateway's interaction id, fixed before the upstream is called. */
  interactionId: string;
  /** Epoch ms. */
  createdAtMs: number;
  /** Request fields every interaction object repeats (model or agent, system_instruction, tools, ...). */
  echo: Json;
  /** The upstream's protocol (the origin recorded in thought signatures). */
  origin: ProtocolName;
  sink: InteractionsSink;
  /** Clock (epoch ms) for `updated`. */
  now: () => number;
  /** `thinking_summaries: "none"`: thought steps carry only their signature (which still holds the text). */
  hideThoughtSummaries?: boolean;
}
