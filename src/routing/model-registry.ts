import type { GatewayConfig, ModelConfig } from '../config/schema.js';
import type { Provider } from '../providers/types.js';

export type Capability = 'chat' | 'image' | 'video';
export type Modality = 'text' | 'image' | 'pdf' | 'audio' | 'video';

export interface ResolvedModel {
  /** The public id the caller used. */
  id: string;
  provider: Provider;
  upstreamModel: string;
  capabilities: Capability[];
  inputModalities: Modality[];
  ownedBy: string;
  created: number;
  options: Record<string, unknown>;
  /** True when the id was `providerId/upstreamModel` rather than a configured entry. */
  direct: boolean;
}

/** Capabilities guessed from the model name when the config does not say. */
export function guessCapabilities(upstreamModel: string): Capability[] {
  const m = upstreamModel.toLowerCase();
  if (/(veo|sora|video|kling|wan-|hailuo|seedance)/.test(m)) return ['video'];
  if (/(dall-e|gpt-image|imagen|image)/.test(m)) return ['image'];
  return ['chat'];
}

function defaultModalities(caps: Capability[], providerType: string): Modality[] {
  if (!caps.includes('chat')) return caps.includes('image') ? ['text', 'image'] : ['text', 'image'];
  if (providerType === 'openai-compatible') return ['text', 'image'];
  return ['text', 'image', 'pdf'];
}

export class ModelRegistry {
  private readonly entries = new Map<string, ResolvedModel>();

  constructor(private readonly config: GatewayConfig, private readonly providers: Map<string, Provider>, createdAt: number) {
    for (const m of config.models) {
      const provider = providers.get(m.provider);
      if (provider) this.entries.set(m.id, this.build(m, provider, createdAt));
    }
  }

  private build(m: ModelConfig, provider: Provider, createdAt: number, direct = false): ResolvedModel {
    const upstreamModel = m.upstreamModel ?? m.id;
    const capabilities = m.capabilities ?? guessCapabilities(upstreamModel);
    // The config schema allows `api: responses` only on providers that have a Responses API side.
    const via = m.api === 'responses' ? provider.responsesApi : provider;
    if (!via) throw new Error(`Model ${m.id}: provider ${provider.id} has no Responses API.`);
    return {
      id: m.id,
      provider: via,
      upstreamModel,
      capabilities,
      inputModalities: m.inputModalities ?? defaultModalities(capabilities, provider.type),
      ownedBy: m.ownedBy ?? provider.id,
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
    const provider = this.providers.get(id.slice(0, slash));
    if (!provider) return undefined;
    return this.build({ id, provider: provider.id, upstreamModel: id.slice(slash + 1) }, provider, 0, true);
  }

  list(): ResolvedModel[] {
    return [...this.entries.values()];
  }
}
