import { extractToken } from '../auth/extract-token.js';
import { anyGlobMatch } from '../auth/glob.js';
import type { Principal } from '../auth/principal.js';
import { GatewayError } from '../errors.js';
import { textResponse } from '../http/known-body.js';
import { errorBodyFor } from '../protocols/error-shapes.js';
import { redact } from '../redact.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { RequestContext } from '../runtime.js';
import { admitKey } from '../limits/admission.js';
import { providerDeps, withCallerKeys } from '../providers/caller-credential.js';

/** Resolves the caller: a host-supplied principal, the host's authenticate(), then config keys. */
export async function authenticate(ctx: RequestContext): Promise<Principal> {
  if (ctx.hostPrincipal) return setPrincipal(ctx, ctx.hostPrincipal);
  const token = extractToken(ctx.request, ctx.url);
  if (token === undefined) {
    throw new GatewayError('authentication', 'Missing API key. Send it as "Authorization: Bearer <key>", "x-api-key" or "x-goog-api-key".', { detail: 'missing_api_key' });
  }
  if (ctx.rt.authenticate) {
    const fromHost = await ctx.rt.authenticate(token, ctx.request);
    if (fromHost) return setPrincipal(ctx, fromHost);
  }
  const found = await ctx.rt.keys.lookup(token);
  if (!found) throw new GatewayError('authentication', 'Invalid API key.', { detail: 'invalid_api_key' });
  return setPrincipal(ctx, found);
}

async function setPrincipal(ctx: RequestContext, p: Principal): Promise<Principal> {
  ctx.principal = p;
  ctx.event.keyId = p.id;
  if (p.providerKeys) ctx.callerSecrets = Object.values(p.providerKeys);
  await admitKey(ctx, p);
  return p;
}

export function mayUseModel(principal: Principal, modelId: string): boolean {
  return anyGlobMatch(principal.models ?? ['*'], modelId);
}

/** Model id -> route (with the caller's own upstream credentials, if any); 404 when unknown, 403 when the caller may not use it. */
export function resolveModel(ctx: RequestContext, principal: Principal, modelId: string, param = 'model'): ResolvedModel {
  let model = ctx.rt.models.resolve(modelId);
  if (!model) throw new GatewayError('not_found', `The model '${modelId}' does not exist or is not served by this gateway.`, { param, detail: 'model_not_found' });
  if (!mayUseModel(principal, model.id)) {
    throw new GatewayError('permission_denied', `This API key is not allowed to use the model '${modelId}'.`, { param, detail: 'model_not_allowed' });
  }
  if (principal.providerKeys) model = withCallerKeys(model, principal.providerKeys, providerDeps(ctx.rt));
  ctx.event.model = model.id;
  ctx.event.provider = model.provider.id;
  ctx.event.upstreamModel = model.upstreamModel;
  if (model.provider.credential === 'caller') ctx.event.providerCredential = 'caller';
  return model;
}

export function requireCapability(model: ResolvedModel, capability: 'chat' | 'image' | 'video', param = 'model'): void {
  if (!model.capabilities.includes(capability)) {
    throw new GatewayError('invalid_request', `The model '${model.id}' does not support ${capability === 'chat' ? 'chat' : `${capability} generation`}.`, { param, detail: 'model_not_supported' });
  }
}

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json');
  return textResponse(JSON.stringify(body), { status, headers: h });
}

/** An error rendered in the endpoint's protocol shape, with secrets scrubbed. */
export function errorResponse(ctx: RequestContext, err: GatewayError): Response {
  const safe = scrubError(ctx, err);
  const headers = new Headers({ 'content-type': 'application/json' });
  if (safe.retryAfter !== undefined) headers.set('retry-after', String(Math.max(1, Math.ceil(safe.retryAfter))));
  return textResponse(JSON.stringify(errorBodyFor(ctx.errorShape, safe, ctx.traceId)), { status: safe.status, headers });
}

/** The gateway's secrets plus this caller's own upstream credentials. */
export function requestSecrets(ctx: RequestContext): string[] {
  return ctx.callerSecrets ? [...ctx.rt.secrets, ...ctx.callerSecrets] : ctx.rt.secrets;
}

export function scrubError(ctx: RequestContext, err: GatewayError): GatewayError {
  const message = redact(err.message, requestSecrets(ctx));
  if (message === err.message) return err;
  return new GatewayError(err.code, message, {
    status: err.status,
    param: err.param,
    ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
    ...(err.detail !== undefined ? { detail: err.detail } : {}),
  });
}
