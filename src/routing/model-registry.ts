import type { CacheConfig, GatewayConfig, LimitsConfig, ModelConfig, PricingConfig } from '../config/schema.js';
import type { UpstreamTarget } from '../protocols/types.js';
import type { Modality, Provider } from '../providers/types.js';

type Capability = 'chat' | 'image' | 'video' | 'embedding';
export type { Modality };

/** One upstream serving a model. */
export interface ResolvedDeployment {
  provider: Provider;
  upstreamModel: string;
  weight: number;
}

export interface ResolvedModel {
  /** The public id the caller used. */
  id: string;
  /** The deployment requests go to (the first one; balancing across `deployments` comes with retries). */
  provider: Provider;
  upstreamModel: string;
  /** Every upstream serving the model (one for a `provider` entry). */
  deployments: ResolvedDeployment[];
  /** Model ids tried in order when every deployment failed. */
  fallbacks: string[];
  limits?: LimitsConfig;
  pricing?: PricingConfig;
  /** The model's response cache settings (a key's own win). */
  cache?: CacheConfig;
  capabilities: Capability[];
  inputModalities: Modality[];
  ownedBy: string;
  created: number;
  options: Record<string, unknown>;
  /** Whether the model takes reasoning settings, as the config says; undefined: guessed by each encoder from the name. */
  reasoning?: boolean;
  /** True when the id was `providerId/upstreamModel` rather than a configured entry. */
  direct: boolean;
}

/** Capabilities guessed from the model name when the config does not say. */
function guessCapabilities(upstreamModel: string): Capability[] {
  const m = upstreamModel.toLowerCase();
  // text-embedding-3-small, gemini-embedding-001, nomic-embed-text, ...
  if (m.includes('embed')) return ['embedding'];
  if (/(veo|sora|video|kling|wan-|hailuo|seedance)/.test(m)) return ['video'];
  if (/(dall-e|gpt-image|imagen|image)/.test(m)) return ['image'];
  return ['chat'];
}

/** Image and video models take a prompt and images; chat models what their vendor's chat API reads. */
function defaultModalities(caps: Capability[], provider: Provider): Modality[] {
  if (caps.includes('chat')) return [...provider.chatInputModalities];
  return caps.includes('embedding') ? ['text'] : ['text', 'image'];
}

export class ModelRegistry {
  private readonly entries = new Map<string, ResolvedModel>();
  /** Where agents not declared as models run (see agentProvider). */
  private readonly agentProviderId: string | undefined;

  constructor(config: GatewayConfig, private readonly providers: Map<string, Provider>, createdAt: number) {
    for (const m of config.models) {
      const built = this.build(m, createdAt);
      if (built) this.entries.set(m.id, built);
    }
    this.agentProviderId = agentProvider(config, providers);
  }

  private build(m: ModelConfig, createdAt: number, direct = false): ResolvedModel | undefined {
    const routes = m.deployments ?? (m.provider ? [{ provider: m.provider, upstreamModel: m.upstreamModel, weight: 1 }] : []);
    const deployments: ResolvedDeployment[] = [];
    for (const d of routes) {
      const provider = this.providers.get(d.provider);
      if (!provider) return undefined;
      // The config schema allows `api: responses` only on providers that have a Responses API side.
      const via = m.api === 'responses' ? provider.responsesApi : provider;
      if (!via) throw new Error(`Model ${m.id}: provider ${provider.id} has no Responses API.`);
      deployments.push({ provider: via, upstreamModel: d.upstreamModel ?? m.id, weight: d.weight });
    }
    const first = deployments[0];
    if (!first) return undefined;
    const capabilities = m.capabilities ?? guessCapabilities(first.upstreamModel);
    return {
      id: m.id,
      provider: first.provider,
      upstreamModel: first.upstreamModel,
      deployments,
      fallbacks: m.fallbacks ?? [],
      ...(m.limits ? { limits: m.limits } : {}),
      ...(m.pricing ? { pricing: m.pricing } : {}),
      ...(m.cache ? { cache: m.cache } : {}),
      capabilities,
      inputModalities: m.inputModalities ?? defaultModalities(capabilities, first.provider),
      ownedBy: m.ownedBy ?? first.provider.id,
      created: m.created ?? createdAt,
      options: m.options ?? {},
      ...(m.reasoning !== undefined ? { reasoning: m.reasoning } : {}),
      direct,
    };
  }

  /** A configured model id, or `providerId/upstreamModel`. */
  resolve(id: string): ResolvedModel | undefined {
    const found = this.entries.get(id);
    if (found) return found;
    const slash = id.indexOf('/');
    if (slash <= 0 || slash === id.length - 1) return undefined;
    return this.build({ id, provider: id.slice(0, slash), upstreamModel: id.slice(slash + 1) }, 0, true);
  }

  /**
   * A Gemini agent (the Interactions API's `agent`) that is not a configured model: run on the
   * provider marked `agents: true`, else on the only provider with an Interactions API; undefined
   * when there is none (or several and none is marked). The upstream says whether the agent exists.
   */
  resolveAgent(name: string): ResolvedModel | undefined {
    if (this.agentProviderId === undefined) return undefined;
    return this.build({ id: name, provider: this.agentProviderId, upstreamModel: name, capabilities: ['chat'] }, 0, true);
  }

  list(): ResolvedModel[] {
    return [...this.entries.values()];
  }
}

/** The provider `agents: true` marks, else the only one with an Interactions API (Gemini). */
function agentProvider(config: GatewayConfig, providers: Map<string, Provider>): string | undefined {
  const marked = config.providers.find((p) => p.agents === true && providers.get(p.id)?.interactionsApi);
  if (marked) return marked.id;
  const able = [...providers.values()].filter((p) => p.interactionsApi);
  return able.length === 1 ? able[0]?.id : undefined;
}

/** What a request encoder needs to know about the upstream of `model`: its vendor's dialect and the model's own settings. */
export function upstreamTarget(model: ResolvedModel): UpstreamTarget {
  const dialect = model.provider.chatDialect;
  return model.reasoning === undefined ? dialect : { ...dialect, reasoning: model.reasoning };
}
