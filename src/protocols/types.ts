import type { GatewayError } from '../core/errors.js';
import type { SSEEvent } from '../wire/sse.js';
import type { IRChatRequest, IRChatResponse, IRFinishReason, IRStreamEvent, IRUsage, IRWarning, ProtocolName } from '../ir/types.js';
import type { InteractionsEncodeOptions } from './gemini-interactions/client/encode-options.js';
import type { ResponsesEncodeOptions } from './openai-responses/client/encode-options.js';

/** What a client side's encoders and relays need from the endpoint besides the IR (one field per protocol that needs any). */
export interface ClientOptions {
  /** OpenAI chat: the client asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage?: boolean;
  /** Gemini: `alt=sse`; false when the stream is one JSON array. */
  sse?: boolean;
  /**
   * Gemini: the client asked for thought parts (`thinkingConfig.includeThoughts`). Without it an
   * answer has none, as Gemini's own: a reasoning signature rides on the next part instead.
   */
  thoughts?: boolean;
  /** Responses: the gateway's response id, echoed request fields, tool names, the turn's sink. */
  responses?: ResponsesEncodeOptions;
  /** Interactions: the same for an interaction. */
  interactions?: InteractionsEncodeOptions;
}

export interface ResponseMeta {
  traceId: string;
  /**
   * The model the upstream was asked for (never the caller's alias): what the answer names until the
   * upstream reports the concrete version it used (`message-start`), which then wins.
   */
  upstreamModel: string;
  /** Unix seconds. */
  created: number;
  newId: (prefix: string) => string;
  /** The client protocol's per-request options (e.g. Gemini `alt=sse` vs JSON array stream). */
  options?: ClientOptions;
  /** What the upstream encoder could not express (stream encoders may report them at the end). */
  warnings?: IRWarning[];
  /** The protocol of the upstream that answered (whose reasoning signatures the answer carries). */
  upstream?: ProtocolName;
}

/** Turns IR stream events into the client's wire text, with per-request state in its closure. */
export interface StreamEncoder {
  /** Wire text for one event (may be empty). */
  encode(event: IRStreamEvent): string;
  /** Text to send after the last event (e.g. `data: [DONE]`). */
  end(): string;
  /** In-band error after the stream started. */
  error(err: GatewayError): string;
}

export interface DecodeContext<Req = unknown> {
  /** The public model id (for the IR and error messages). */
  model: string;
  stream: boolean;
  /** The body as the endpoint already validated it with this protocol's schema; decoders validate when it is absent. */
  validated?: Req;
  /** The upstream's protocol: reasoning signatures of other vendors are not sent to it. */
  target?: ProtocolName;
}

/** The client-facing side of a protocol; `Req` is its validated request body. */
export interface ClientCodec<Req = unknown> {
  protocol: ProtocolName;
  /** Wire body -> IR. Throws GatewayError(400) naming the field. */
  decodeRequest(body: Record<string, unknown>, ctx: DecodeContext<Req>): IRChatRequest;
  encodeResponse(res: IRChatResponse, meta: ResponseMeta, warnings: IRWarning[]): Record<string, unknown>;
  createStreamEncoder(meta: ResponseMeta): StreamEncoder;
  /** An IRWarning setting (`topK`) as this client's request names it (`generationConfig.topK`); other names unchanged. */
  settingName(setting: string, body: Record<string, unknown>): string;
}

/** Turns an upstream's stream into IR events, with per-request state in its closure. */
export interface StreamDecoder {
  event(ev: SSEEvent): IRStreamEvent[];
  /** Called when the upstream closes; may emit a final finish or an error for a cut stream. */
  end(): IRStreamEvent[];
}

/** What the encoder may need to know about the upstream it writes for. */
export interface UpstreamTarget {
  /** Chat Completions: the field of the output limit (OpenAI's own API wants max_completion_tokens; compatible servers read max_tokens, the default). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * What ends a complete stream: `done-required` (OpenAI itself always sends `data: [DONE]` after
   * the usage chunk, so a stream closed without it was cut) or `finish-reason` (the default: some
   * OpenAI-compatible servers omit `[DONE]`, so a stream that sent its finish reason is complete).
   */
  streamTerminator?: 'done-required' | 'finish-reason';
  /**
   * Whether the model takes reasoning settings (the model config's `reasoning`): true sends them,
   * false drops them with a warning; undefined leaves it to the encoder's guess from the name.
   */
  reasoning?: boolean;
}

/** The upstream-facing side of a protocol. */
export interface UpstreamCodec {
  protocol: ProtocolName;
  /** IR -> wire body. Throws GatewayError('unsupported') naming what cannot be expressed. */
  encodeRequest(req: IRChatRequest, upstreamModel: string, target?: UpstreamTarget): { body: Record<string, unknown>; warnings: IRWarning[] };
  decodeResponse(json: unknown): IRChatResponse;
  createStreamDecoder(target?: UpstreamTarget): StreamDecoder;
  /**
   * A stream tells of the vendor's web search only after the answer's text (Gemini's grounding
   * metadata comes with the last chunk), although the search ran first.
   */
  searchReportedAfterText?: boolean;
}

/** Same protocol in and out: forward the client's body, relay the stream, observe usage. */
export interface PassthroughCodec {
  protocol: ProtocolName;
  /** The body to send upstream: the client's bytes with the model rewritten (and little else). */
  prepareBody(raw: string, parsed: Record<string, unknown>, upstreamModel: string, stream: boolean): string;
  /**
   * Reads usage from a sync JSON answer (the endpoint adds traceId when it answers). `asSent`: the
   * body is the upstream's answer unchanged, so its text can go out as it came (with the traceId).
   */
  finishSyncBody(json: Record<string, unknown>, traceId: string): { body: Record<string, unknown>; usage: IRUsage | undefined; asSent?: boolean; finishReason?: IRFinishReason };
  /** False for a 200 JSON body that is not an answer of the protocol (an error object): the call fails (502) instead. */
  isAnswer?(json: Record<string, unknown>): boolean;
  /** Relays stream events; can drop gateway-added events. */
  createRelay(ctx: { clientWantsUsage: boolean; options?: ClientOptions; traceId?: string; target?: UpstreamTarget }): StreamRelay;
}

export interface StreamRelay {
  /** Wire text to send for this upstream event ('' to drop it); `raw`: the event as it came, to send when it stays as it is. */
  relay(ev: SSEEvent, raw?: string): string;
  /**
   * Where the next text that may need `relay` starts in these whole events (as the upstream sent
   * them), at or after `from`; -1 when none. Only the events holding such text are parsed; the rest
   * are forwarded as they came. A relay without it sees every event parsed and re-framed.
   */
  nextLook?(events: string, from: number): number;
  end(): string;
  error(err: GatewayError): string;
  usage(): IRUsage | undefined;
  /** The answer's finish reason, read from the events the relay looks at for usage anyway (nothing is re-encoded for it). */
  finishReason(): IRFinishReason | undefined;
}

export interface ProtocolCodec {
  client: ClientCodec;
  upstream: UpstreamCodec;
  passthrough: PassthroughCodec;
}
