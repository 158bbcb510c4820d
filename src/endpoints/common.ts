import { extractToken } from '../auth/extract-token.js';
import { anyGlobMatch } from '../auth/glob.js';
import type { Principal } from '../auth/principal.js';
import { GatewayError } from '../core/errors.js';
import { appendTopLevelField } from '../wire/json-splice.js';
import { Reply } from '../reply/reply.js';
import { ReplyHeaders } from '../reply/reply-headers.js';
import { errorBodyFor, statusInShape } from '../protocols/shared/error-bodies.js';
import { scrubContent, scrubError as scrubGatewayError } from '../core/redact.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import { escapeControls, modelIdProblem } from '../routing/model-id.js';
import type { EndpointContext } from './services.js';
import { quoteInput } from '../core/quote-input.js';
import { admitKey } from '../limits/admission.js';
import { withCallerKeys } from '../routing/caller-keys.js';

/**
 * Resolves the caller: a host-supplied principal, the host's authenticate(), the config's keys, then
 * the store's (in memory). Counts the request against the key's requests per minute unless `admit`
 * is false (GET /v1/key: looking at one's own limits spends none of them).
 */
export async function authenticate(ctx: EndpointContext, { admit = true }: { admit?: boolean } = {}): Promise<Principal> {
  if (ctx.hostPrincipal) return setPrincipal(ctx, ctx.hostPrincipal, admit);
  const token = extractToken(ctx.request, ctx.url);
  if (token === undefined) {
    throw new GatewayError('authentication', 'Missing API key. Send it as "Authorization: Bearer <key>", "x-api-key" or "x-goog-api-key".', { detail: 'missing_api_key' });
  }
  if (ctx.services.authenticate) {
    const fromHost = await ctx.services.authenticate(token, ctx.request);
    if (fromHost) return setPrincipal(ctx, fromHost, admit);
  }
  const found = ctx.services.keys.lookupSync(token);
  if (found) return setPrincipal(ctx, found, admit);
  const stored = ctx.services.control?.keyCache.lookup(token);
  if (stored) {
    // A known key that may not be used (revoked, disabled, expired, rotated out): say which, never the key.
    if ('refused' in stored) throw new GatewayError('authentication', stored.refused, { detail: 'invalid_api_key' });
    return setPrincipal(ctx, stored.principal, admit);
  }
  throw new GatewayError('authentication', 'Invalid API key.', { detail: 'invalid_api_key' });
}

/** Records the caller on the request; with `admit`, counts it against the key's requests per minute (no promise when the key has no such limit). */
function setPrincipal(ctx: EndpointContext, p: Principal, admit: boolean): Principal | Promise<Principal> {
  ctx.principal = p;
  ctx.event.keyId = p.id;
  if (p.providerKeys) {
    ctx.callerSecrets = Object.values(p.providerKeys);
    ctx.secrets = [...ctx.services.secrets, ...ctx.callerSecrets];
  }
  const admitted = admit ? admitKey(ctx.services.admission, ctx, p) : undefined;
  return admitted ? admitted.then(() => p) : p;
}

export function mayUseModel(principal: Principal, modelId: string): boolean {
  return anyGlobMatch(principal.models ?? ['*'], modelId);
}

/**
 * Model id -> route (with the caller's own upstream credentials, if any); 400 when the id holds what
 * no model id may (model-id.ts), 404 when unknown, 403 when the caller may not use it.
 */
export function resolveModel(ctx: EndpointContext, principal: Principal, modelId: string, param = 'model'): ResolvedModel {
  ctx.event.requestedModel = modelId;
  const model = ctx.services.models.resolve(modelId);
  const problem = modelIdProblem(modelId, model?.direct === true);
  if (problem) throw new GatewayError('invalid_request', `The model '${quoteInput(escapeControls(modelId))}' cannot be used: ${problem}.`, { param, detail: 'invalid_model_id' });
  if (!model) throw new GatewayError('not_found', `The model '${quoteInput(modelId)}' does not exist or is not served by this gateway.`, { param, detail: 'model_not_found' });
  return authorizeModel(ctx, principal, model, modelId, param);
}

/**
 * An Interactions `agent`: a configured model of that name, else the agent run on the Gemini
 * provider for agents (ModelRegistry.resolveAgent). The key's model patterns apply to the name.
 */
export function resolveAgent(ctx: EndpointContext, principal: Principal, name: string): ResolvedModel {
  const problem = modelIdProblem(name, true);
  if (problem) throw new GatewayError('invalid_request', `The model '${quoteInput(escapeControls(name))}' cannot be used: ${problem}.`, { param: 'agent', detail: 'invalid_model_id' });
  const model = ctx.services.models.resolve(name) ?? ctx.services.models.resolveAgent(name);
  if (!model) {
    throw new GatewayError('not_found', `The agent '${quoteInput(name)}' is not served by this gateway: agents run on a Gemini provider, and none is configured (or several are and none has "agents": true).`, {
      param: 'agent',
      detail: 'model_not_found',
    });
  }
  return authorizeModel(ctx, principal, model, name, 'agent');
}

/** 403 when the caller may not use the model; else the route (with the caller's own upstream credentials, if any), noted in the event. */
function authorizeModel(ctx: EndpointContext, principal: Principal, resolved: ResolvedModel, modelId: string, param: string): ResolvedModel {
  let model = resolved;
  if (!mayUseModel(principal, model.id)) {
    throw new GatewayError('permission_denied', `This API key is not allowed to use the model '${quoteInput(modelId)}'.`, { param, detail: 'model_not_allowed' });
  }
  if (principal.providerKeys) model = withCallerKeys(model, principal.providerKeys, ctx.services.routing.providerDeps);
  ctx.event.model = model.id;
  ctx.event.provider = model.provider.id;
  ctx.event.upstreamModel = model.upstreamModel;
  if (model.provider.credential === 'caller') ctx.event.providerCredential = 'caller';
  return model;
}

export function requireCapability(model: ResolvedModel, capability: ResolvedModel['capabilities'][number], param = 'model'): void {
  if (!model.capabilities.includes(capability)) {
    const what = capability === 'chat' ? 'chat' : capability === 'embedding' ? 'embeddings' : `${capability} generation`;
    throw new GatewayError('invalid_request', `The model '${model.id}' does not support ${what}.`, { param, detail: 'model_not_supported' });
  }
}

/**
 * A JSON answer of the gateway. One rule for every endpoint: a JSON body (success or error) carries
 * a top-level `traceId` equal to the `x-trace-id` header, so a logged body can be matched to hook
 * events and gateway logs. Streamed events do not (only their in-band error event does).
 */
export function jsonResponse(ctx: EndpointContext, body: object, status = 200, headers?: HeadersInit): Reply {
  const h = new ReplyHeaders(headers);
  h.set('content-type', 'application/json');
  return new Reply(status, h, JSON.stringify({ ...body, traceId: ctx.traceId }));
}

/** An error rendered in the endpoint's protocol shape, with secrets scrubbed. */
export function errorResponse(ctx: EndpointContext, err: GatewayError): Reply {
  const safe = scrubError(ctx, err);
  const headers = new ReplyHeaders({ 'content-type': 'application/json' });
  if (safe.retryAfter !== undefined) headers.set('retry-after', String(Math.max(1, Math.ceil(safe.retryAfter))));
  return new Reply(statusInShape(ctx.errorShape, safe), headers, JSON.stringify(errorBodyFor(ctx.errorShape, safe, ctx.traceId)));
}

/** The gateway's secrets plus this caller's own upstream credentials (EndpointContext.secrets). */
export function requestSecrets(ctx: EndpointContext): readonly string[] {
  return ctx.secrets;
}

/** The gateway's one error scrubber (src/core/redact.ts) with this request's secrets. */
export function scrubError(ctx: EndpointContext, err: GatewayError): GatewayError {
  return scrubGatewayError(err, requestSecrets(ctx));
}

/**
 * An upstream's JSON object answer as it came, with the traceId as its last member: the JSON
 * upstreamJsonResponse(json) sends, without writing the answer out again. Taken when the answer has
 * no traceId of its own and no `\u` or `\/` escape (then every string reads the same in both texts,
 * so the same secrets are scrubbed); otherwise the answer is written out by upstreamJsonResponse.
 */
export function upstreamJsonTextResponse(ctx: EndpointContext, text: string, json: Record<string, unknown>): Reply {
  if (!Object.hasOwn(json, 'traceId') && !text.includes('\\u') && !text.includes('\\/')) {
    const out = appendTopLevelField(text, 'traceId', JSON.stringify(ctx.traceId));
    if (out !== undefined) return new Reply(200, new ReplyHeaders({ 'content-type': 'application/json' }), scrubContent(out, requestSecrets(ctx)));
  }
  return upstreamJsonResponse(ctx, json);
}

/** A JSON answer built from what an upstream sent: the configured secrets are scrubbed from it. */
export function upstreamJsonResponse(ctx: EndpointContext, body: object, status = 200, headers?: HeadersInit): Reply {
  const h = new ReplyHeaders(headers);
  h.set('content-type', 'application/json');
  return new Reply(status, h, scrubContent(JSON.stringify({ ...body, traceId: ctx.traceId }), requestSecrets(ctx)));
}
