/**
 * The services of one gateway, built once by createGateway from the config and the host's options:
 * providers, models, keys, limiter, stores, the video task service, background runs, telemetry.
 * Nothing here is shared between two gateways in one process.
 */
import { DEFAULT_STORE_TIMEOUT_MS, withStoreDeadline } from '../core/store-deadline.js';
import { randomIdSource } from '../core/random-ids.js';
import { KeyStore } from '../auth/key-store.js';
import { interpolateEnv, parseConfig } from '../config/load.js';
import type { GatewayConfigInput } from '../config/schema.js';
import type { GatewayServices } from '../endpoints/services.js';
import { Telemetry } from '../observability/telemetry.js';
import { providerDeps } from '../providers/caller-credential.js';
import { createProvider } from '../providers/registry.js';
import type { Provider } from '../providers/types.js';
import { ModelRegistry } from '../routing/model-registry.js';
import { DeploymentHealth } from '../routing/deployment-health.js';
import { MemoryRateLimiter, type RateLimiter } from '../limits/rate-limiter.js';
import { GuardedRateLimiter } from '../limits/guarded-rate-limiter.js';
import { BudgetSeeds } from '../limits/budget-seeds.js';
import { DEFAULT_CONVERSATION_MAX_ENTRIES, DEFAULT_CONVERSATION_TTL_MS } from '../conversations/conversation-store.js';
import { MemoryConversationStore } from '../conversations/memory-conversation-store.js';
import { BackgroundRuns } from '../conversations/background-runs.js';
import { MemoryTaskStore } from '../tasks/memory-task-store.js';
import { VideoTaskService } from '../tasks/video/video-service.js';
import { MemoryResponseCache } from '../cache/memory-response-cache.js';
import { ledgerOf } from '../control/ledger/ledger-recorder.js';
import { AdminAuth } from '../control/admin/admin-auth.js';
import type { GatewayOptions } from './options.js';

function defaultEnv(): Record<string, string | undefined> | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env;
}

/** Builds the services shared by every request of one gateway; throws ConfigError listing every bad field. */
export function createServices(config: GatewayConfigInput, options: GatewayOptions = {}): GatewayServices {
  // `env: false`: the config's values are final (already interpolated, e.g. by a CLI that read a file).
  const env = options.env === false ? undefined : (options.env ?? defaultEnv());
  const interpolated = env ? interpolateEnv(config, env) : config;
  const cfg = parseConfig(interpolated);
  const now = options.now ?? Date.now;
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const idGen = options.newId ?? randomIdSource();
  const providers = new Map<string, Provider>();
  for (const p of cfg.providers) {
    providers.set(p.id, createProvider(p, { fetch: fetchImpl, now, defaultTimeoutMs: cfg.timeouts.upstreamMs }));
  }
  const secrets = [
    ...cfg.providers.flatMap((p) => (p.apiKey ? [p.apiKey] : [])),
    ...cfg.keys.map((k) => k.key),
    ...cfg.keys.flatMap((k) => Object.values(k.providerKeys ?? {})),
    ...cfg.admin.keys.map((k) => k.key),
    ...(cfg.admin.sessionSecret ? [cfg.admin.sessionSecret] : []),
  ];
  const keys = new KeyStore(cfg.keys);
  const admin = new AdminAuth(
    cfg.admin.keys,
    options.authorizeAdmin,
    {
      isPlatformKey: (token) => keys.lookupSync(token) !== undefined || options.control?.keyCache.isPlatformKey(token) === true,
      ...(options.control ? { db: options.control.db } : {}),
    },
    { sessionSecret: cfg.admin.sessionSecret, sessionTtlSeconds: cfg.admin.sessionTtlSeconds, now },
  );
  // A given store is shared (Redis): every call gets a deadline, a failure is a 503.
  const storeTimeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const conversations = {
    store: options.conversationStore
      ? withStoreDeadline(options.conversationStore, 'response store', storeTimeoutMs)
      : new MemoryConversationStore(now, options.conversations?.maxEntries ?? DEFAULT_CONVERSATION_MAX_ENTRIES),
    ttlMs: options.conversations?.ttlMs ?? DEFAULT_CONVERSATION_TTL_MS,
    pollIntervalMs: options.conversations?.pollIntervalMs ?? 250,
    cancelCheckMs: options.conversations?.cancelCheckMs ?? 1000,
  };
  const newId = (prefix = '') => `${prefix}${idGen()}`;
  // The control plane's task records are the task center's: they are the store unless the host gives one.
  const givenTasks = options.taskStore ?? options.control?.tasks;
  const taskStore = givenTasks ? withStoreDeadline(givenTasks, 'task store', storeTimeoutMs) : new MemoryTaskStore(now);
  const ledger = options.ledger ?? options.control?.ledger;
  const models = new ModelRegistry(cfg, providers, Math.floor(now() / 1000));
  const telemetry = new Telemetry(options.telemetry);
  const random = options.random ?? Math.random;
  const health = new DeploymentHealth(cfg.cooldown, now);
  const rateLimiter = rateLimiterOf(options, cfg.rateLimitStore, now);
  const rt: GatewayServices = {
    config: cfg,
    keys,
    models,
    providers,
    fetch: fetchImpl,
    now,
    newId,
    random,
    health,
    hooks: options.hooks ?? {},
    telemetry,
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    rateLimiter,
    routing: { models, health, random, retry: cfg.retry, totalMs: cfg.timeouts.totalMs, providerDeps: providerDeps({ fetch: fetchImpl, now, config: cfg }) },
    admission: { rateLimiter, now, totalMs: cfg.timeouts.totalMs, ...budgetSeedsOf(options, now) },
    conversations,
    secrets,
    videoTasks: new VideoTaskService({
      config: cfg,
      providers,
      fetch: fetchImpl,
      now,
      newId,
      secrets,
      store: taskStore,
      onStatusChange: (task, _from, to) => telemetry.videoTaskState(to, { model: task.data.model, providerId: task.data.providerId }),
      ...(options.video ? { options: options.video } : {}),
    }),
    backgroundRuns: new BackgroundRuns({ conversations }),
    tasksInStore: !options.taskStore && options.control !== undefined,
    ...(ledger ? { ledger: ledgerOf(ledger, now) } : {}),
    ...(options.control ? { control: options.control } : {}),
    ...(options.control && admin.enabled ? { admin } : {}),
    logger: options.logger ?? console,
    cache: { store: options.responseCache ?? new MemoryResponseCache(now, options.responseCacheMaxBytes), timeoutMs: storeTimeoutMs },
  };
  // An instance that can make videos polls from the start, so it also advances tasks other
  // instances created; otherwise the poller starts on first use.
  if (models.list().some((m) => m.capabilities.includes('video'))) rt.videoTasks.start();
  return rt;
}

/** With a usage ledger to read, a key's budget period starts from what the ledger says it spent (limits/budget-seeds.ts). */
function budgetSeedsOf(options: GatewayOptions, now: () => number): { budgetSeeds?: BudgetSeeds } {
  const read = options.control?.budgetSpent;
  if (!read) return {};
  const logger = options.logger ?? console;
  return { budgetSeeds: new BudgetSeeds(read, now, { warn: (m) => logger.warn(`modelgate: ${m}`) }) };
}

/** A shared store (anything but the in-process one) gets a deadline and the configured failure mode. */
function rateLimiterOf(options: GatewayOptions, store: GatewayServices['config']['rateLimitStore'], now: () => number): RateLimiter {
  const given = options.rateLimiter;
  if (!given) return new MemoryRateLimiter();
  if (given instanceof MemoryRateLimiter) return given;
  const logger = options.logger ?? console;
  return new GuardedRateLimiter(given, { timeoutMs: store.timeoutMs, onError: store.onError, now, warn: (m) => logger.warn(m) });
}

