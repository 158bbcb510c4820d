import { z } from 'zod';

const PROVIDER_TYPES = ['openai', 'openai-compatible', 'anthropic', 'gemini', 'mock'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/**
 * Strict: a misspelt field (`baseUrl` for `baseURL`) is an error, not silently dropped; a provider
 * whose base URL was dropped would send its key to the vendor's default host.
 */
const providerSchema = z
  .strictObject({
    id: z.string().min(1).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only'),
    type: z.enum(PROVIDER_TYPES),
    baseURL: z.string().url().optional(),
    apiKey: z.string().min(1).optional(),
    /** Extra headers sent to this upstream on every request. */
    headers: z.record(z.string(), z.string()).optional(),
    /** Time allowed until the upstream answers with headers, in ms. */
    timeoutMs: z.number().int().positive().optional(),
    /**
     * Gemini only: the provider that runs Gemini agents (the Interactions API's `agent`) not
     * declared as models. Needed only when several Gemini providers are configured; with one, agents
     * go to it.
     */
    agents: z.boolean().optional(),
  })
  .superRefine((p, ctx) => {
    if (p.type === 'openai-compatible' && !p.baseURL) {
      ctx.addIssue({ code: 'custom', path: ['baseURL'], message: 'required for openai-compatible providers' });
    }
    if (p.agents === true && p.type !== 'gemini') {
      ctx.addIssue({ code: 'custom', path: ['agents'], message: `only gemini providers run agents, not ${p.type}` });
    }
  });

const MODALITIES = ['text', 'image', 'pdf', 'audio', 'video'] as const;
const CAPABILITIES = ['chat', 'image', 'video', 'embedding'] as const;
const MODEL_APIS = ['chat', 'responses'] as const;

/** Requests, tokens and concurrency per key or per model; a spending budget per calendar period (UTC). */
export const limitsSchema = z.strictObject({
  /** Requests per minute (429 with Retry-After beyond it). */
  requestsPerMinute: z.number().int().positive().optional(),
  /** Tokens per minute: the estimated input plus the requested maximum output is reserved before the call, settled with the real usage after. */
  tokensPerMinute: z.number().int().positive().optional(),
  /** Requests in flight at once (streams count until they end or the client leaves). */
  concurrentRequests: z.number().int().positive().optional(),
  /** Spending allowed per period, from `pricing` and the real usage (429 `insufficient_quota` beyond it). */
  budget: z.strictObject({ usd: z.number().positive(), period: z.enum(['day', 'week', 'month']) }).optional(),
});
export type LimitsConfig = z.output<typeof limitsSchema>;

/** USD per million tokens; for a video model, USD per second of video. */
const pricingSchema = z.strictObject({
  inputPerMTok: z.number().nonnegative().default(0),
  outputPerMTok: z.number().nonnegative().default(0),
  /** Input tokens read from the vendor's prompt cache (default: inputPerMTok). */
  cachedInputPerMTok: z.number().nonnegative().optional(),
  /** Video models: USD per second of video asked for, charged when the upstream accepted the job. */
  perVideoSecond: z.number().nonnegative().optional(),
});
export type PricingConfig = z.output<typeof pricingSchema>;

/**
 * The exact-match response cache of a model or a key (opt-in): answers are kept `ttlSeconds`, for
 * the key that asked (`scope: "key"`, the default) or for every key (`"global"`). A hit costs
 * `hitCostFraction` of the original answer's price (default 0).
 */
const cacheSchema = z.strictObject({
  ttlSeconds: z.number().int().positive(),
  scope: z.enum(['key', 'global']).default('key'),
  hitCostFraction: z.number().min(0).max(1).default(0),
});
export type CacheConfig = z.output<typeof cacheSchema>;

const deploymentSchema = z.strictObject({
  provider: z.string().min(1),
  /** The model name sent upstream; defaults to the model's `id`. */
  upstreamModel: z.string().min(1).optional(),
  /** Share of the traffic relative to the other deployments (default 1). */
  weight: z.number().positive().default(1),
});

const modelSchema = z.object({
  id: z.string().min(1),
  /** A model has either `provider` (+ `upstreamModel`) or `deployments`. */
  provider: z.string().min(1).optional(),
  /** The model name sent upstream; defaults to `id`. */
  upstreamModel: z.string().min(1).optional(),
  /** Several upstreams serving this model. */
  deployments: z.array(deploymentSchema).min(1).optional(),
  /** Models tried in order when every deployment failed with a retryable error. */
  fallbacks: z.array(z.string().min(1)).optional(),
  limits: limitsSchema.optional(),
  pricing: pricingSchema.optional(),
  /**
   * What the model can do (`chat`, `image`, `video`, `embedding`). When absent it is guessed from the
   * upstream model's name: `text-embedding-*`, `gemini-embedding-*` and names with `embed` are
   * embedding models, names of image and video models are those, the rest chat.
   */
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
  /**
   * Whether the model takes reasoning settings (`reasoning_effort`, a thinking budget): true sends
   * them, false drops them with an `x-modelgate-warnings` entry. When absent it is guessed from the
   * upstream model's name (OpenAI's o-series and gpt-5, names with "reason", "think", "deepseek-r";
   * Anthropic and Gemini models are taken to think).
   */
  reasoning: z.boolean().optional(),
  /** Cache this model's answers (chat, Messages, generateContent, Responses with store: false, embeddings). */
  cache: cacheSchema.optional(),
});

/** The shortest platform key accepted (also checked for MODELGATE_API_KEY in defaults.ts). */
export const MIN_PLATFORM_KEY_LENGTH = 8;

const keySchema = z.object({
  id: z.string().min(1),
  key: z.string().min(MIN_PLATFORM_KEY_LENGTH, `must be at least ${MIN_PLATFORM_KEY_LENGTH} characters`),
  /** Glob patterns matched against the requested model id. */
  models: z.array(z.string().min(1)).default(['*']),
  disabled: z.boolean().optional(),
  limits: limitsSchema.optional(),
  /** Provider id -> the key holder's own upstream credential, used instead of the provider's `apiKey`. */
  providerKeys: z.record(z.string(), z.string().min(1)).optional(),
  /** Cache this key's answers; the key's setting wins over the model's. */
  cache: cacheSchema.optional(),
});

/** An admin API credential: read-only (`read`) or read-write (`write`). */
const adminKeySchema = z.strictObject({
  id: z.string().min(1),
  key: z.string().min(16, 'must be at least 16 characters'),
  access: z.enum(['read', 'write']).default('read'),
});

export const configSchema = z
  .object({
    providers: z.array(providerSchema).default([]),
    models: z.array(modelSchema).default([]),
    keys: z.array(keySchema).default([]),
    /** The admin API (/admin/v1): without a credential here, MODELGATE_ADMIN_KEY or the host's authorizeAdmin it does not exist. */
    admin: z
      .strictObject({
        keys: z.array(adminKeySchema).default([]),
        /** Signs the console's session cookies; the same value on every instance behind one address (random per process otherwise). */
        sessionSecret: z.string().min(32, 'must be at least 32 characters').optional(),
        /** How long a console sign-in lasts (default 12 hours). */
        sessionTtlSeconds: z.number().int().min(60).max(30 * 86_400).default(12 * 3600),
      })
      .prefault({}),
    /**
     * The control plane (the standalone server's store). `secret`: from it the key that encrypts
     * store keys' providerKeys at rest is derived; the same on every instance (else MODELGATE_SECRET).
     */
    control: z.strictObject({ secret: z.string().min(16, 'must be at least 16 characters').optional() }).prefault({}),
    limits: z
      .object({
        /** Largest request body accepted, in bytes (default 32 MiB). */
        maxBodyBytes: z.number().int().positive().default(32 * 1024 * 1024),
      })
      .prefault({}),
    timeouts: z
      .object({
        /** Time to open the upstream connection (ms). */
        connectMs: z.number().int().positive().default(10_000),
        /** Time until the upstream answers with headers (ms). */
        upstreamMs: z.number().int().positive().default(120_000),
        /** Longest silence allowed inside an upstream stream (ms). */
        streamIdleMs: z.number().int().positive().default(300_000),
        /** Longest a whole request may take, retries and stream included (ms). */
        totalMs: z.number().int().positive().default(900_000),
      })
      .prefault({}),
    /** Upstream calls per request (the first included), with exponential backoff and full jitter. */
    retry: z
      .strictObject({
        attempts: z.number().int().min(1).max(10).default(3),
        initialDelayMs: z.number().int().nonnegative().default(200),
        maxDelayMs: z.number().int().nonnegative().default(8000),
      })
      .prefault({}),
    /** A deployment that failed `failures` times in a row is skipped for `cooldownMs`, then probed. */
    cooldown: z
      .strictObject({
        failures: z.number().int().positive().default(3),
        cooldownMs: z.number().int().positive().default(30_000),
      })
      .prefault({}),
    /** The store of rate-limit counters (memory, or Redis through `rateLimiter`). */
    rateLimitStore: z
      .strictObject({
        /** When the store fails or is slow: `open` serves the request (a warning at most once a minute), `closed` answers 503. */
        onError: z.enum(['open', 'closed']).default('open'),
        /** Longest a request waits for the store (ms). */
        timeoutMs: z.number().int().positive().max(60_000).default(250),
      })
      .prefault({}),
  })
  // Cross-references are checked even when other fields are invalid, so one error lists every bad path.
  .superRefine((cfg: unknown, ctx) => checkReferences(cfg, (path, message) => ctx.addIssue({ code: 'custom', path, message })), {
    when: (payload) => isRecord(payload.value),
  });

type Report = (path: Array<string | number>, message: string) => void;

/**
 * The cross-reference problems of a raw config, as `path: message` lines. parseConfig adds them
 * when zod stopped before its own refinement ran (an issue such as a non-integer aborts it).
 */
export function referenceIssues(cfg: unknown): string[] {
  const out: string[] = [];
  checkReferences(cfg, (path, message) => out.push(`${path.join('.')}: ${message}`));
  return out;
}

function checkReferences(cfg: unknown, report: Report): void {
  const root = isRecord(cfg) ? cfg : {};
  const providerIds = new Set<string>();
  for (const [i, p] of entries(root.providers)) {
    if (typeof p.id !== 'string') continue;
    if (providerIds.has(p.id)) report(['providers', i, 'id'], `duplicate provider id "${p.id}"`);
    providerIds.add(p.id);
  }
  const agentProviders = entries(root.providers).filter(([, p]) => p.agents === true);
  for (const [i] of agentProviders.slice(1)) report(['providers', i, 'agents'], 'only one provider may run agents');
  const providerTypes = new Map(entries(root.providers).map(([, p]) => [p.id, p.type]));
  const modelIds = new Set(entries(root.models).flatMap(([, m]) => (typeof m.id === 'string' ? [m.id] : [])));
  const seenModels = new Set<string>();
  for (const [i, m] of entries(root.models)) {
    checkModelRoute(m, ['models', i], providerIds, providerTypes, report);
    for (const [j, f] of Array.isArray(m.fallbacks) ? m.fallbacks.entries() : []) {
      if (typeof f !== 'string') continue;
      if (f === m.id) report(['models', i, 'fallbacks', j], 'a model cannot fall back to itself');
      else if (!modelIds.has(f)) report(['models', i, 'fallbacks', j], `unknown model "${f}"`);
    }
    if (typeof m.id !== 'string') continue;
    if (seenModels.has(m.id)) report(['models', i, 'id'], `duplicate model id "${m.id}"`);
    seenModels.add(m.id);
  }
  const keyIds = new Set<string>();
  const keyValues = new Set<string>();
  for (const [i, k] of entries(root.keys)) {
    if (typeof k.id === 'string') {
      if (keyIds.has(k.id)) report(['keys', i, 'id'], `duplicate key id "${k.id}"`);
      keyIds.add(k.id);
    }
    if (typeof k.key === 'string') {
      if (keyValues.has(k.key)) report(['keys', i, 'key'], 'the same key value is used twice');
      keyValues.add(k.key);
    }
    if (typeof k.key === 'string' && adminKeyValues(root).has(k.key)) report(['keys', i, 'key'], 'the same value is also an admin key');
    if (isRecord(k.providerKeys)) {
      for (const id of Object.keys(k.providerKeys)) if (!providerIds.has(id)) report(['keys', i, 'providerKeys', id], `unknown provider "${id}"`);
    }
  }
  const retry = isRecord(root.retry) ? root.retry : {};
  if (typeof retry.initialDelayMs === 'number' && typeof retry.maxDelayMs === 'number' && retry.maxDelayMs < retry.initialDelayMs) {
    report(['retry', 'maxDelayMs'], 'must be at least initialDelayMs');
  }
}

/** A model names its upstream either with `provider` (+ `upstreamModel`) or with `deployments`. */
function checkModelRoute(m: Record<string, unknown>, at: Array<string | number>, providerIds: Set<string>, providerTypes: Map<unknown, unknown>, report: Report): void {
  const checkProvider = (provider: unknown, path: Array<string | number>): void => {
    if (typeof provider !== 'string') return;
    if (!providerIds.has(provider)) return report(path, `unknown provider "${provider}"`);
    const type = providerTypes.get(provider);
    if (m.api === 'responses' && typeof type === 'string' && type !== 'openai' && type !== 'openai-compatible') {
      report([...at, 'api'], `"responses" needs an openai or openai-compatible provider, not ${type} ("${provider}")`);
    }
  };
  const deployments = Array.isArray(m.deployments) ? m.deployments : undefined;
  if (m.provider !== undefined && m.deployments !== undefined) report([...at, 'deployments'], 'a model has either "provider" or "deployments", not both');
  else if (m.provider === undefined && m.deployments === undefined) report([...at, 'provider'], 'required (or "deployments")');
  if (deployments && m.upstreamModel !== undefined) report([...at, 'upstreamModel'], 'with "deployments", each deployment names its own upstreamModel');
  checkProvider(m.provider, [...at, 'provider']);
  for (const [j, d] of entries(deployments)) checkProvider(d.provider, [...at, 'deployments', j, 'provider']);
}

function adminKeyValues(root: Record<string, unknown>): Set<string> {
  const admin = isRecord(root.admin) ? root.admin : {};
  return new Set(entries(admin.keys).flatMap(([, k]) => (typeof k.key === 'string' ? [k.key] : [])));
}

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
export type AdminKeyConfig = GatewayConfig['admin']['keys'][number];
export type DeploymentConfig = NonNullable<ModelConfig['deployments']>[number];
