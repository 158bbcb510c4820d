import { GatewayError } from '../../errors.js';
import type { ResolvedModel } from '../../routing/model-registry.js';
import type { Provider } from '../types.js';
import { videoLimitsFor } from './limits.js';
import { mockVideoLimits, openAIVideosAdapter } from './openai-videos.js';
import type { VideoAdapter, VideoLimits } from './types.js';
import { veoAdapter } from './veo.js';

/** The video API a provider speaks, or undefined when it has none. */
export function videoAdapterFor(provider: Provider): VideoAdapter | undefined {
  switch (provider.type) {
    case 'openai':
    case 'openai-compatible':
    case 'mock':
      return openAIVideosAdapter;
    case 'gemini':
      return veoAdapter;
    default:
      return undefined;
  }
}

export function requireVideoAdapter(model: ResolvedModel): VideoAdapter {
  const adapter = videoAdapterFor(model.provider);
  if (!adapter) {
    throw new GatewayError('unsupported', `The model '${model.id}' is served by provider '${model.provider.id}' (${model.provider.type}), which has no video API.`, { param: 'model' });
  }
  return adapter;
}

export function limitsForModel(model: ResolvedModel, adapter: VideoAdapter): VideoLimits {
  const defaults = model.provider.type === 'mock' ? mockVideoLimits() : adapter.defaultLimits(model.upstreamModel);
  return videoLimitsFor(model, defaults);
}

export type { UpstreamVideoState, VideoAdapter, VideoLimits } from './types.js';
