import { z } from 'zod';

export const PROVIDER_TYPES = ['openai', 'openai-compatible', 'anthropic', 'gemini', 'mock'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

const providerSchema = z
  .object({
    id: z.string().min(1).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only'),
    type: z.enum(PROVIDER_TYPES),
    baseURL: z.string().url().optional(),
    apiKey: z.string().min(1).optional(),
    /** Extra headers sent to this upstream on every request. */
    headers: z.record(z.string(), z.string()).optional(),
    /** Time allowed until the upstream answers with headers, in ms. */
    timeoutMs: z.number().int().positive().optional(),
  })
  .superRefine((p, ctx) => {
    if (p.type !== 'mock' && !p.baseURL && p.type === 'openai-compatible') {
      ctx.addIssue({ code: 'custom', path: ['baseURL'], message: 'required for openai-compatible providers' });
    }
  });

export const MODALITIES = ['text', 'image', 'pdf', 'audio', 'video'] as const;
export const CAPABILITIES = ['chat', 'image', 'video'] as const;
export const MODEL_APIS = ['chat', 'responses'] as const;

const modelSchema = z.object({
  id: z.string().min(1),
  provider: z.string().min(1),
  /** The model name sent upstream; defaults to `id`. */
  upstreamModel: z.string().min(1).optional(),
  /** What the model can do; defaults from the provider type. */
  capabilities: z.array(z.enum(CAPABILITIES)).min(1).optional(),
  inputModalities: z.array(z.enum(MODALITIES)).min(1).optional(),
  ownedBy: z.string().optional(),
  created: z.number().int().nonnegative().optional(),
  /** Free-form per-model settings for capability checks (e.g. video durations). */
  options: z.record(z.string(), z.unknown()).optional(),
  /**
   * Which OpenAI API serves the model: `chat` (Chat Completions, default) or `responses` (the
   * Responses API, for models only it serves: the codex and `-pro` families). OpenAI and
   * OpenAI-compatible providers only.
   */
  api: z.enum(MODEL_APIS).optional(),
});

/** The shortest platform key accepted (also checked for MODELGATE_API_KEY in defaults.ts). */
export const MIN_PLATFORM_KEY_LENGTH = 8;

const keySchema = z.object({
  id: z.string().min(1),
  key: z.string().min(MIN_PLATFORM_KEY_LENGTH, `must be at least ${MIN_PLATFORM_KEY_LENGTH} characters`),
  /** Glob patterns matched against the requested model id. */
  models: z.array(z.string().min(1)).default(['*']),
  disabled: z.boolean().optional(),
  /** Requests allowed per minute for this key (429 with Retry-After beyond it). */
  limits: z.object({ requestsPerMinute: z.number().int().positive().optional() }).optional(),
});

export const configSchema = z
  .object({
    providers: z.array(providerSchema).default([]),
    models: z.array(modelSchema).default([]),
    keys: z.array(keySchema).default([]),
    limits: z
      .object({
        /** Largest request body accepted, in bytes (default 32 MiB). */
        maxBodyBytes: z.number().int().positive().default(32 * 1024 * 1024),
      })
      .prefault({}),
    timeouts: z
      .object({
        /** Time until the upstream answers with headers (ms). */
        upstreamMs: z.number().int().positive().default(120_000),
        /** Longest silence allowed inside an upstream stream (ms). */
        streamIdleMs: z.number().int().positive().default(300_000),
      })
      .prefault({}),
  })
  // Cross-references are checked even when other fields are invalid, so one error lists every bad path.
  .superRefine(
    (cfg: unknown, ctx) => {
      const root = isRecord(cfg) ? cfg : {};
      const providerIds = new Set<string>();
      for (const [i, p] of entries(root.providers)) {
        if (typeof p.id !== 'string') continue;
        if (providerIds.has(p.id)) ctx.addIssue({ code: 'custom', path: ['providers', i, 'id'], message: `duplicate provider id "${p.id}"` });
        providerIds.add(p.id);
      }
      const providerTypes = new Map(entries(root.providers).map(([, p]) => [p.id, p.type]));
      const modelIds = new Set<string>();
      for (const [i, m] of entries(root.models)) {
        if (typeof m.provider === 'string' && !providerIds.has(m.provider)) ctx.addIssue({ code: 'custom', path: ['models', i, 'provider'], message: `unknown provider "${m.provider}"` });
        const type = providerTypes.get(m.provider);
        if (m.api === 'responses' && typeof type === 'string' && type !== 'openai' && type !== 'openai-compatible') {
          ctx.addIssue({ code: 'custom', path: ['models', i, 'api'], message: `"responses" needs an openai or openai-compatible provider, not ${type}` });
        }
        if (typeof m.id !== 'string') continue;
        if (modelIds.has(m.id)) ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model id "${m.id}"` });
        modelIds.add(m.id);
      }
      const keyIds = new Set<string>();
      const keyValues = new Set<string>();
      for (const [i, k] of entries(root.keys)) {
        if (typeof k.id === 'string') {
          if (keyIds.has(k.id)) ctx.addIssue({ code: 'custom', path: ['keys', i, 'id'], message: `duplicate key id "${k.id}"` });
          keyIds.add(k.id);
        }
        if (typeof k.key === 'string') {
          if (keyValues.has(k.key)) ctx.addIssue({ code: 'custom', path: ['keys', i, 'key'], message: 'the same key value is used twice' });
          keyValues.add(k.key);
        }
      }
    },
    { when: (payload) => isRecord(payload.value) },
  );

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** [index, object] pairs of an array that may hold invalid entries. */
function entries(v: unknown): Array<[number, Record<string, unknown>]> {
  if (!Array.isArray(v)) return [];
  return v.flatMap((x, i): Array<[number, Record<string, unknown>]> => (isRecord(x) ? [[i, x]] : []));
}

export type GatewayConfigInput = z.input<typeof configSchema>;
export type GatewayConfig = z.output<typeof configSchema>;
export type ProviderConfig = GatewayConfig['providers'][number];
export type ModelConfig = GatewayConfig['models'][number];
export type KeyConfig = GatewayConfig['keys'][number];
