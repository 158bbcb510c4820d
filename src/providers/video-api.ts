/** The video API a vendor offers (VideoAdapter, in the vendor's folder) and the vendor-neutral terms it works in. */

/** A video request in the gateway's vendor-neutral terms, checked against the model's limits. */
export interface VideoJob {
  prompt: string;
  durationSeconds: number;
  aspectRatio: string;
  resolution: string;
  negativePrompt?: string;
  personGeneration?: string;
  generateAudio?: boolean;
}

/** What one model accepts; from provider defaults, overridable per model (`options.video`). */
export interface VideoLimits {
  /** Allowed durations in whole seconds. */
  durations: number[];
  defaultDuration: number;
  /** `<w>:<h>` values. */
  aspectRatios: string[];
  defaultAspectRatio: string;
  /** `<n>p` values. */
  resolutions: string[];
  defaultResolution: string;
  /** Whether audio is always produced, never, or switchable per request (`generateAudio`). */
  audio: 'always' | 'never' | 'optional';
  negativePrompt: boolean;
  /** Allowed `personGeneration` values; empty when the model has no such switch. */
  personGeneration: string[];
  /** OpenAI-style `size` per `<aspect>@<resolution>`; computed when missing. */
  sizes: Record<string, string>;
}

/** The upstream's view of a job, already mapped to gateway states. */
export interface UpstreamVideoState {
  status: 'queued' | 'in_progress' | 'succeeded' | 'failed';
  /** 0-100 when the upstream reports it. */
  progress?: number;
  error?: { code: string; message: string };
  /** Result references (ids or URIs the adapter can download); set when succeeded. */
  outputs?: Array<{ ref: string; contentType: string | null }>;
  /** Epoch ms after which the upstream deletes the result. */
  expiresAt?: number;
}
