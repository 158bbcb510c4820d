import type { GatewayConfig, LimitsConfig, ModelConfig, PricingConfig } from '../config/schema.js';
import type { Provider } from '../providers/types.js';

type Capability = 'chat' | 'image' | 'video';
export type Modality = 'text' | 'image' | 'pdf' | 'audio' | 'video';

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
  capabilities: Capability[];
  inputModalities: Modality[];
  ownedBy: string;
  created: number;
  options: Record<string, unknown>;
  /** True when the id was `providerId/upstreamModel` rather than a configured entry. */
  direct: boolean;
}

/** Capabilities guessed from the model name when the config does not say. */
function guessCapabilities(upstreamModel: string): Capability[] {
  const m = upstreamModel.toLowerCase();
  if (/(veo|sora|video|kling|wan-|hailuo|seedance)/.test(m)) return ['video'];
  if (/(dall-e|gpt-image|imagen|image)/.test(m)) return ['image'];
  return ['chat'];
}

/** Image and video models take a prompt and images; chat models what their vendor's chat API reads. */
function defaultModalities(caps: Capability[], provider: Provider): Modality[] {
  return caps.includes('chat') ? [...provider.chatInputModalities] : ['text', 'image'];
}

export class ModelRegistry {
  private readonly entries = new Map<string, ResolvedModel>();

  constructor(config: GatewayConfig, private readonly providers: Map<string, Provider>, createdAt: number) {
    for (const m of config.models) {
      const built = this.build(m, createdAt);
      if (built) this.entries.set(m.id, built);
    }
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
      capabilities,
      inputModalities: m.inputModalities ?? defaultModalities(capabilities, first.provider),
      ownedBy: m.ownedBy ?? first.provider.id,
      created: m.created ?? createdAt,
      options: m.options ?? {},
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

  list(): ResolvedModel[] {
    return [...this.entries.values()];
  }
}
