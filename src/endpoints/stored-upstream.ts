/**
 * Cancels or deletes a vendor's own copy of a stored object (Gemini's interaction, OpenAI's stored
 * response), best effort: the gateway's record
 * is what the client sees, so an upstream failure changes nothing for it. The call goes the one
 * way every upstream call goes (callUpstream: a client span under the request's, redirects refused,
 * the credential's owner, secrets scrubbed from the error) with the caller's own Gemini key where
 * it has one; a failure is logged as a warning, never swallowed silently.
 */
import { toGatewayError } from '../core/errors.js';
import { providerDeps, withCallerKey } from '../providers/caller-credential.js';
import type { Provider, StoredObjectAction } from '../providers/types.js';
import type { EndpointContext } from './services.js';
import { callUpstream } from '../upstream/call.js';
import { scrubError } from '../core/redact.js';

/** The configured provider `providerId`, with the caller's own key for it (bring your own key) when it has one. */
export function providerForCaller(ctx: EndpointContext, providerId: string): Provider | undefined {
  const provider = ctx.services.providers.get(providerId);
  const keys = ctx.principal?.providerKeys;
  if (!provider || !keys || !Object.hasOwn(keys, providerId)) return provider;
  const key = keys[providerId];
  return key ? withCallerKey(provider, key, ctx.services.routing.providerDeps) : provider;
}

/**
 * A cancel or a delete of an object the provider keeps for one of its APIs (its Interactions API:
 * Gemini's interactions; its Responses API: OpenAI's stored responses), where that API says
 * (Provider.storedObjectRequest). Not tied to the client's connection (a cancel runs after the
 * client that started the run may be gone): bounded by the provider's timeout.
 */
async function upstreamStoredCall(ctx: EndpointContext, api: Provider | undefined, upstreamId: string, action: StoredObjectAction, what: 'interaction' | 'response'): Promise<void> {
  const target = api?.storedObjectRequest?.(upstreamId, action);
  if (!api || !target) return;
  try {
    const result = await callUpstream(api, { ...target, protocol: api.chatProtocol, observer: ctx.obs });
    try {
      await result.response.body?.cancel();
    } finally {
      result.done();
    }
  } catch (err) {
    const safe = scrubError(toGatewayError(err), ctx.secrets);
    ctx.services.logger.warn(
      `modelgate: the ${action} of the ${what} '${upstreamId}' at provider '${api.id}' failed (${safe.code}: ${safe.message}); the gateway's own record was ${action === 'cancel' ? 'cancelled' : 'deleted'} regardless (trace ${ctx.traceId}).`,
    );
  }
}

/** Gemini's copy of an interaction (the provider's Interactions API). */
export function upstreamInteractionCall(ctx: EndpointContext, provider: Provider, upstreamId: string, action: StoredObjectAction): Promise<void> {
  return upstreamStoredCall(ctx, provider.interactionsApi, upstreamId, action, 'interaction');
}

/** The vendor's stored copy of a response (the provider's Responses API: OpenAI keeps what it answers unless told `store: false`). */
export function upstreamResponseCall(ctx: EndpointContext, provider: Provider, upstreamId: string, action: StoredObjectAction): Promise<void> {
  return upstreamStoredCall(ctx, provider.responsesApi, upstreamId, action, 'response');
}
