import type { ProviderConfig, ProviderType } from '../config/schema.js';
import type { ProtocolName } from '../ir/types.js';
import type { UpstreamTarget } from '../protocols/types.js';
import type { RequestObserver } from '../observability/request-observer.js';
import type { UpstreamVideoState, VideoJob, VideoLimits } from './video-api.js';

export { takesAbortHook, type AbortHook, type FetchLike, type HookableFetch } from '../upstream/fetch.js';
import type { FetchLike } from '../upstream/fetch.js';

/** What a chat model takes in. */
export type Modality = 'text' | 'image' | 'pdf' | 'audio' | 'video';

export interface UpstreamCall {
  upstreamModel: string;
  stream: boolean;
  /** The inbound request's headers, for vendor headers worth forwarding (anthropic-beta, ...). */
  inboundHeaders: Headers;
}

/** What a vendor offers beyond chat, and the defaults generic code needs; declared in the vendor's folder. */
export interface ProviderCapabilities {
  /** The image API: OpenAI Images (`/images/generations`, `/images/edits`) or Gemini generateContent with image output. */
  imageApi?: 'openai-images' | 'gemini-generate-content';
  /** The embeddings API: OpenAI's `/embeddings` or Gemini's `:batchEmbedContents`; none for vendors without one (Anthropic). */
  embeddingsApi?: 'openai-embeddings' | 'gemini-embed-content';
  /** The video API (submit, poll, download, cancel). */
  videoApi?: VideoAdapter;
  /** What chat models accept when the config does not list `inputModalities`. */
  chatInputModalities: Modality[];
  /** Token limits shown for models whose options do not set them (Gemini models API). */
  defaultTokenLimits: { input: number; output: number };
  /** What a chat request encoder needs to know about this vendor's dialect. */
  chatDialect: UpstreamTarget;
  /** Every chat model is also served on `responsesApi` (OpenAI itself), so a Responses client passes through. */
  responsesForEveryModel?: boolean;
}

/** What the gateway does to an object a vendor keeps (see Provider.storedObjectRequest). */
export type StoredObjectAction = 'cancel' | 'delete';

/** A configured upstream vendor, ready to call. */
export interface Provider extends ProviderCapabilities {
  id: string;
  /** The configured vendor type: for config checks and messages; behaviour goes by the capabilities. */
  type: ProviderType;
  config: ProviderConfig;
  /** The chat protocol this provider speaks natively. */
  chatProtocol: ProtocolName;
  fetch: FetchLike;
  /** URL + headers of a chat call in `chatProtocol`. */
  chatRequest(call: UpstreamCall): { url: string; headers: Headers };
  /**
   * URL + headers of the vendor's input-token count for a body in `chatProtocol` (Anthropic
   * `/v1/messages/count_tokens`, Gemini `models/{model}:countTokens`, the Responses API's
   * `/responses/input_tokens`); absent where the API has no counting endpoint (Chat Completions).
   */
  countTokensRequest?(call: UpstreamCall): { url: string; headers: Headers };
  /**
   * URL, method + headers of an action on an object the vendor keeps for this API (Gemini
   * Interactions: cancel a background interaction, delete a stored one); absent where the gateway
   * acts on no such object.
   */
  storedObjectRequest?(id: string, action: StoredObjectAction): { url: string; method: 'POST' | 'DELETE'; headers: Headers };
  /**
   * URL + credential headers (no content type) of another of the vendor's REST APIs (images,
   * videos): `path` under the base URL as the vendor's SDK uses it (`/videos` for OpenAI, whose
   * base includes `/v1`; `/v1beta/models/...` for Gemini).
   */
  apiTarget(path: string): { url: string; headers: Headers };
  /** The same vendor reached through the OpenAI Responses API, for models with `"api": "responses"`. */
  responsesApi?: Provider;
  /** The same vendor reached through Gemini's Interactions API (`/v1beta/interactions`), for Interactions clients. */
  interactionsApi?: Provider;
  /** Credentials to scrub from anything the upstream sends back. */
  secrets: string[];
  /**
   * Whose credential calls carry: the gateway's (`apiKey` from the config, the default) or the
   * caller's own (bring your own key, `keys[].providerKeys`). An upstream 401/403 means different
   * things for the two.
   */
  credential?: 'gateway' | 'caller';
  timeoutMs: number;
}

/** One video vendor API: submit, poll, download. Calls carry the provider's credentials. */
export interface VideoAdapter {
  readonly name: string;
  defaultLimits(upstreamModel: string): VideoLimits;
  /** `observer`: the submitting request's, so the call is a client span of it. */
  submit(provider: Provider, upstreamModel: string, job: VideoJob, limits: VideoLimits, observer?: RequestObserver): Promise<{ upstreamId: string; state: UpstreamVideoState }>;
  poll(provider: Provider, upstreamModel: string, upstreamId: string): Promise<UpstreamVideoState>;
  /** The result bytes as an upstream response (streamed, not buffered). */
  download(provider: Provider, ref: string, signal: AbortSignal): Promise<Response>;
  /** Best-effort cancellation/deletion upstream. */
  cancel?(provider: Provider, upstreamId: string): Promise<void>;
}
