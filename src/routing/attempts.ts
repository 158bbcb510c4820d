/**
 * The retry loop of a request: the model asked for, then its fallbacks that can serve the request,
 * each given up to `retry.attempts` upstream calls over its deployments (weighted, untried ones
 * first, cooling-down ones skipped), with exponential backoff and full jitter before calling a
 * deployment again (the upstream's retry-after honoured, capped at maxDelayMs). A deployment not
 * yet tried in this request is called at once. Only failures before anything reached the client
 * are retried: the attempt returns once the upstream's answer is accepted (a stream's headers).
 * The client leaving, or the request's total time running out, ends the loop at once.
 */
import { anyGlobMatch } from '../auth/glob.js';
import { GatewayError, toGatewayError } from '../core/errors.js';
import type { UpstreamAttemptRecord } from '../observability/hooks.js';
import type { GatewayConfig } from '../config/schema.js';
import type { ProviderFactoryDeps } from '../providers/registry.js';
import type { RequestContext } from '../request/context.js';
import { upstreamStatusOf } from '../upstream/failure.js';
import { scrubError } from '../core/redact.js';
import { pickDeployment, weightedPick } from './balancer.js';
import { withCallerKeys } from './caller-keys.js';
import type { DeploymentHealth } from './deployment-health.js';
import type { ModelRegistry, ResolvedDeployment, ResolvedModel } from './model-registry.js';
import { canServe, type RequestNeeds } from './request-needs.js';
import { backoffDelayMs, isRetryable, sleep } from './retry-policy.js';

/** What the routing of a request uses of the gateway; built once per gateway. */
export interface RoutingServices {
  models: ModelRegistry;
  /** Circuit breakers of the deployments (this instance's view). */
  health: DeploymentHealth;
  /** Uniform random numbers in [0, 1): load balancing, retry jitter. */
  random: () => number;
  retry: GatewayConfig['retry'];
  /** The whole time a request may take (`timeouts.totalMs`). */
  totalMs: number;
  /** What rebuilding a provider with a caller's own key needs. */
  providerDeps: ProviderFactoryDeps;
}

/** `model` routed to one of its deployments. */
export function withDeployment(model: ResolvedModel, d: ResolvedDeployment): ResolvedModel {
  return { ...model, provider: d.provider, upstreamModel: d.upstreamModel };
}

/**
 * The model asked for, then each of its `fallbacks` that this caller may use and that can serve
 * the request (with the caller's own provider keys applied, as for the model asked for).
 */
export function candidateModels(services: RoutingServices, ctx: RequestContext, model: ResolvedModel, needsOf: () => RequestNeeds): ResolvedModel[] {
  const out = [model];
  // Read from the body only when there is a fallback to check.
  let needs: RequestNeeds | undefined;
  for (const id of model.fallbacks) {
    let fallback = services.models.resolve(id);
    if (!fallback || !canServe(fallback, (needs ??= needsOf()))) continue;
    const principal = ctx.principal;
    if (principal && !anyGlobMatch(principal.models ?? ['*'], fallback.id)) continue;
    if (principal?.providerKeys) fallback = withCallerKeys(fallback, principal.providerKeys, services.providerDeps);
    out.push(fallback);
  }
  return out;
}

/**
 * Runs `attempt` until one succeeds, a failure is not retryable, or the attempts run out (then the
 * last failure is thrown). `accepts` leaves out deployments that cannot take this request as
 * prepared (e.g. a pass-through body for another vendor's API). `admitFallback` applies a fallback
 * model's own limits before it is tried: a fallback without room (429) is skipped, recorded as an
 * attempt with the reason, and is the answer when nothing else serves.
 */
export async function runAttempts<T>(
  services: RoutingServices,
  ctx: RequestContext,
  models: readonly ResolvedModel[],
  attempt: (target: ResolvedModel) => Promise<T>,
  accepts?: (target: ResolvedModel) => boolean,
  admitFallback?: (model: ResolvedModel) => Promise<void>,
): Promise<T> {
  const { retry, health, random } = services;
  ctx.deadline ??= Date.now() + services.totalMs;
  const deadline = ctx.deadline;
  let last: unknown;
  const usable = accepts ? models.map((model) => model.deployments.filter((d) => accepts(withDeployment(model, d)))) : models.map((model) => model.deployments);
  for (const [i, model] of models.entries()) {
    const deployments = usable[i] ?? [];
    if (deployments.length === 0) continue;
    if (i > 0 && admitFallback) {
      try {
        await admitFallback(model);
      } catch (err) {
        const g = toGatewayError(err);
        if (g.code !== 'rate_limited') throw err;
        record(ctx, withDeployment(model, deployments[0] as ResolvedDeployment), g.status, `${g.code}: ${g.message}`, true);
        last = err;
        continue;
      }
    }
    // Cooling-down deployments are skipped while something else can be tried; the last model's are
    // tried anyway when nothing else is left (the gateway does not refuse what might work).
    const lastResort = nothingAfter(usable, i);
    const tried = new Set<string>();
    let retries = 0;
    for (let n = 0; n < retry.attempts; n++) {
      const d = pickDeployment(deployments, tried, health, random) ?? (lastResort ? pickAny(deployments, tried, health, random) : undefined);
      if (!d) break;
      const key = health.keyOf(d);
      if (tried.has(key)) {
        const g = last instanceof GatewayError ? last : undefined;
        const delay = backoffDelayMs(retries++, retry, random, g?.retryAfter);
        if (Date.now() + delay >= deadline) throw last;
        try {
          await sleep(delay, [ctx.signal]);
        } catch {
          throw new GatewayError('client_closed', 'The request was cancelled.');
        }
      }
      const probing = health.state(key) === 'probe';
      if (probing) health.startProbe(key);
      tried.add(key);
      const target = withDeployment(model, d);
      routedTo(ctx, target);
      try {
        const out = await attempt(target);
        health.success(key);
        record(ctx, target, 200);
        return out;
      } catch (err) {
        const g = toGatewayError(err);
        recordUpstreamCall(ctx, target, g);
        if (!isRetryable(g)) {
          if (probing) health.release(key);
          throw err;
        }
        health.failure(key);
        last = err;
        if (ctx.signal.aborted || Date.now() >= deadline) throw err;
      }
    }
  }
  throw last ?? new GatewayError('unavailable', 'No deployment can serve this request.');
}

/** Any deployment, cooling down or not (untried ones first). */
function pickAny(deployments: readonly ResolvedDeployment[], tried: ReadonlySet<string>, health: DeploymentHealth, random: () => number): ResolvedDeployment | undefined {
  const fresh = deployments.filter((d) => !tried.has(health.keyOf(d)));
  return weightedPick(fresh.length ? fresh : deployments, random);
}

/** The request's event names the model, provider and upstream model of the attempt in flight (in the end: the one that answered). */
function routedTo(ctx: RequestContext, target: ResolvedModel): void {
  ctx.event.model = target.id;
  ctx.event.provider = target.provider.id;
  ctx.event.upstreamModel = target.upstreamModel;
  if (target.provider.credential === 'caller') ctx.event.providerCredential = 'caller';
  else delete ctx.event.providerCredential;
}

/** True when no model after the i-th has a usable deployment. */
function nothingAfter(usable: readonly (readonly ResolvedDeployment[])[], i: number): boolean {
  for (let j = i + 1; j < usable.length; j++) if ((usable[j] as readonly ResolvedDeployment[]).length > 0) return false;
  return true;
}

/**
 * An upstream call as an attempt (x-modelgate-attempts, the hook events, the ledger): answered, or
 * failed with the upstream's status. A failure before any upstream call (a request the vendor's
 * protocol cannot express) is no attempt. runAttempts records each of its calls so; a video
 * submission (one call, no retries) too.
 */
export function recordUpstreamCall(ctx: RequestContext, target: ResolvedModel, err?: unknown): void {
  if (err === undefined) return record(ctx, target, 200);
  const g = toGatewayError(err);
  const status = upstreamStatusOf(g);
  if (status !== undefined) record(ctx, target, status, `${g.code}: ${scrubError(g, ctx.secrets).message}`);
}

function record(ctx: RequestContext, target: ResolvedModel, status: number, reason?: string, skipped?: true): void {
  const entry: UpstreamAttemptRecord = { model: target.id, provider: target.provider.id, upstreamModel: target.upstreamModel, status };
  if (reason) entry.reason = reason;
  if (skipped) entry.skipped = skipped;
  // A new array each time: an event already handed to a hook keeps the list it had.
  const before = ctx.event.attempts;
  ctx.event.attempts = before ? [...before, entry] : [entry];
}

/**
 * A name as a header value: printable ASCII as is, anything else (a model id in another script)
 * percent-encoded as UTF-8, so no name can make a header invalid (ids with control characters are
 * refused before they get here: model-id.ts).
 */
function headerText(name: string): string {
  if (/^[\x20-\x7e]*$/.test(name)) return name;
  return name.replace(/[^\x20-\x7e]+/g, (run) => [...new TextEncoder().encode(run)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/** x-modelgate-model, x-modelgate-provider, x-modelgate-attempts on every response of a request routed to a model. */
export function applyRoutingHeaders(ctx: RequestContext, headers: Headers): void {
  if (!ctx.event.model) return;
  headers.set('x-modelgate-model', headerText(ctx.event.model));
  if (ctx.event.provider) headers.set('x-modelgate-provider', headerText(ctx.event.provider));
  // Upstream calls made: a fallback skipped at its own limit was not called.
  let calls = 0;
  for (const a of ctx.event.attempts ?? []) if (!a.skipped) calls++;
  headers.set('x-modelgate-attempts', String(calls));
}
