/**
 * The one pipeline of the three token counts (`POST /v1/messages/count_tokens`,
 * `POST /v1beta/models/{model}:countTokens`, `POST /v1/responses/input_tokens`): the client's body
 * goes, with the model rewritten, to the counting endpoint each provider names
 * (Provider.countTokensRequest), through the attempt loop like a chat call (retries with backoff,
 * cooldowns, the model's fallbacks that count in the same protocol) and the one upstream call.
 * A model with no deployment that counts in the client's protocol is estimated locally by the
 * endpoint instead.
 */
import type { ProtocolName } from '../ir/types.js';
import type { Provider } from '../providers/types.js';
import { candidateModels, runAttempts, withDeployment } from '../routing/attempts.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import { chatNeeds } from '../routing/request-needs.js';
import type { EndpointContext } from './services.js';
import { callUpstream, readUpstreamJson, upstreamRequest } from '../upstream/call.js';

export interface CountPlan<T> {
  /** The protocol of the client's body (and of the counting endpoint's error bodies). */
  protocol: ProtocolName;
  /** The client's parsed body (what a fallback must be able to serve). */
  parsed: Record<string, unknown>;
  /** The provider that counts for `target` in `protocol`, if one does (the endpoint's own rules: e.g. the Responses API view). */
  counter(target: ResolvedModel): Provider | undefined;
  /** The body sent to `target`: the client's, with the model rewritten to the target's upstream model. */
  body(target: ResolvedModel): string;
  /** The answer from the upstream's JSON; throws (a 502) when it lacks the count. */
  read(json: Record<string, unknown>, provider: Provider): T;
}

/** The provider that counts for `target`, only if it has a counting endpoint. */
function countingProvider<T>(plan: CountPlan<T>, target: ResolvedModel): Provider | undefined {
  const provider = plan.counter(target);
  return provider?.chatProtocol === plan.protocol && provider.countTokensRequest ? provider : undefined;
}

/**
 * Counts at the upstream, or undefined when no deployment of `model` counts in the plan's protocol
 * (the endpoint then estimates). Failures are those of a chat call after its retries and fallbacks.
 */
export async function countUpstream<T>(ctx: EndpointContext, model: ResolvedModel, plan: CountPlan<T>): Promise<T | undefined> {
  const counts = (target: ResolvedModel) => countingProvider(plan, target) !== undefined;
  if (!model.deployments.some((d) => counts(withDeployment(model, d)))) return undefined;
  const candidates = candidateModels(ctx.services.routing, ctx, model, () => chatNeeds(plan.parsed));
  return runAttempts(
    ctx.services.routing,
    ctx,
    candidates,
    async (target) => {
      const provider = countingProvider(plan, target) as Provider & Required<Pick<Provider, 'countTokensRequest'>>;
      const { url, headers } = provider.countTokensRequest({ upstreamModel: target.upstreamModel, stream: false, inboundHeaders: ctx.request.headers });
      const upstream = await callUpstream(provider, upstreamRequest(ctx, { url, headers, body: plan.body(target), protocol: plan.protocol }, ctx.services.config.timeouts.streamIdleMs));
      return plan.read(await readUpstreamJson(upstream, provider.id), provider);
    },
    counts,
  );
}
