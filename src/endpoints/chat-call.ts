/** One chat call as the chat pipeline (chat-pipeline.ts) and its response cache (chat-cache.ts) take it. */
import type { IRChatRequest } from '../ir/types.js';
import type { ClientCodec, ClientOptions, PassthroughCodec } from '../protocols/types.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { CachePlan } from '../cache/cache-policy.js';

export interface ChatCall<Req = unknown> {
  /** The client's protocol (its client side). */
  client: ClientCodec<Req>;
  model: ResolvedModel;
  /** The body exactly as received, and parsed. */
  raw: string;
  parsed: Record<string, unknown>;
  /** `parsed` as the endpoint validated it with the client protocol's schema (the decoder reuses it). */
  validated?: Req;
  stream: boolean;
  /** Client-protocol switches for encoders/relays (e.g. includeUsage, Gemini alt=sse). */
  clientOptions?: ClientOptions;
  /** Whether a streaming client asked for usage (OpenAI include_usage). */
  clientWantsUsage?: boolean;
  /** Content type of a streamed answer when it is not SSE (Gemini's JSON-array stream). */
  streamContentType?: string;
  /** The request already decoded (an endpoint that needed async work first, e.g. stored history). */
  ir?: IRChatRequest;
  /** Pass through on this route although the provider's chat protocol differs (e.g. OpenAI's /responses). */
  passthroughRoute?: PassthroughRoute;
  /**
   * True when the body cannot go as it is to `model` although its upstream speaks the client's
   * protocol (vendor extensions it does not know, a setting the model does not take): translated
   * through the IR instead, which drops or converts them (and says so in x-modelgate-warnings).
   */
  translateFor?: (model: ResolvedModel) => boolean;
  /** Set by runChat when the call uses the response cache: where a complete answer is kept. */
  cache?: CachePlan;
}

/** Where and how a pass-through call goes when it is not the provider's chat endpoint. */
export interface PassthroughRoute {
  codec: PassthroughCodec;
  /** URL and headers for a model routed to one of its deployments; undefined when that deployment has no such API. */
  target: (model: ResolvedModel) => { url: string; headers: Headers } | undefined;
}
