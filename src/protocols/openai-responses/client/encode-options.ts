/** The per-request options the Responses encoders take beyond the IR (ResponseMeta.options.responses), set by the endpoint. */
import type { ProtocolName } from '../../../ir/types.js';
import type { Json } from '../../shared/json.js';
import type { ToolNames } from './decode-tools.js';

/** Receives what a response produced, for storing it (filled by the encoders and the relay). */
export interface TurnSink {
  /** Every event of a stream, serialized, in order (background runs record them). */
  onEvent?: (type: string, data: string) => void;
  /** The final response object, once known. */
  final?: Json;
  /** The upstream's own response id (pass-through to OpenAI). */
  upstreamResponseId?: string;
}

/** What the encoders need besides the IR: set by the endpoint under `ResponseMeta.options.responses`. */
export interface ResponsesEncodeOptions {
  /** The gateway's response id (`resp_…`), fixed before the upstream is called. */
  responseId: string;
  /** Unix seconds. */
  createdAt: number;
  /** Request fields every response object repeats. */
  echo: Json;
  /** Upstream tool names -> the client's names (namespaces, custom tools). */
  names: ToolNames;
  /** The upstream's protocol (the origin recorded in reasoning tokens). */
  origin: ProtocolName;
  sink: TurnSink;
  /** `include` asked for `web_search_call.action.sources`: a search item lists the pages it found. */
  webSearchSources?: boolean;
  /**
   * The request may search the web and the upstream's stream tells of the search only after the
   * answer's text (UpstreamCodec.searchReportedAfterText): the stream holds messages back until the
   * search is known, so its `web_search_call` item comes before the message that cites it.
   */
  holdTextForSearch?: boolean;
  /** A background run: its `response.created` (queued) was recorded at submission; numbering continues at 1. */
  background?: boolean;
  /** Clock (epoch ms) for `completed_at`. */
  now: () => number;
}
