import type { ProviderConfig, ProviderType } from '../config/schema.js';
import type { ProtocolName } from '../ir/types.js';

export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export interface UpstreamCall {
  upstreamModel: string;
  stream: boolean;
  /** The inbound request's headers, for vendor headers worth forwarding (anthropic-beta, ...). */
  inboundHeaders: Headers;
}

/** A configured upstream vendor, ready to call. */
export interface Provider {
  id: string;
  type: ProviderType;
  config: ProviderConfig;
  /** The chat protocol this provider speaks natively. */
  chatProtocol: ProtocolName;
  fetch: FetchLike;
  /** URL + headers of a chat call in `chatProtocol`. */
  chatRequest(call: UpstreamCall): { url: string; headers: Headers };
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
