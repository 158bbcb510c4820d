import { MIN_PLATFORM_KEY_LENGTH, type GatewayConfigInput } from './schema.js';
import { ConfigError, type Env } from './load.js';

export interface EmbeddedDefault {
  config: GatewayConfigInput;
  /** Human-readable notices (skipped vendors, generated key). */
  notices: string[];
  /** The platform key, when it was generated rather than taken from MODELGATE_API_KEY. */
  generatedKey?: string;
}

const VENDORS = [
  { env: 'OPENAI_API_KEY', id: 'openai', type: 'openai', baseURL: 'https://api.openai.com/v1', models: ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini'] },
  { env: 'ANTHROPIC_API_KEY', id: 'anthropic', type: 'anthropic', baseURL: 'https://api.anthropic.com', models: ['claude-sonnet-4-5', 'claude-haiku-4-5'] },
  { env: 'GEMINI_API_KEY', id: 'google', type: 'gemini', baseURL: 'https://generativelanguage.googleapis.com', models: ['gemini-2.5-flash', 'gemini-2.5-pro'] },
] as const;

/**
 * The zero-configuration setup: the built-in mock provider, plus each vendor whose API key is in
 * the environment, and one platform key (MODELGATE_API_KEY or a random one).
 */
export function embeddedDefault(env: Env, supportedTypes: readonly string[], randomKey: () => string): EmbeddedDefault {
  const notices: string[] = [];
  const providers: NonNullable<GatewayConfigInput['providers']> = [{ id: 'mock', type: 'mock' }];
  const models: NonNullable<GatewayConfigInput['models']> = [
    { id: 'mock-chat', provider: 'mock', upstreamModel: 'mock-chat' },
    { id: 'mock-image', provider: 'mock', capabilities: ['image'] },
    { id: 'mock-video', provider: 'mock', capabilities: ['video'] },
    { id: 'mock-embedding', provider: 'mock', capabilities: ['embedding'] },
  ];
  for (const vendor of VENDORS) {
    const apiKey = env[vendor.env];
    if (!apiKey) continue;
    if (!supportedTypes.includes(vendor.type)) {
      notices.push(`${vendor.env} is set but provider type "${vendor.type}" is not supported yet; skipped.`);
      continue;
    }
    providers.push({ id: vendor.id, type: vendor.type, baseURL: vendor.baseURL, apiKey });
    for (const m of vendor.models) models.push({ id: m, provider: vendor.id });
    notices.push(`${vendor.env} found: ${vendor.id} models enabled (also reachable as "${vendor.id}/<model>").`);
  }
  let key = env.MODELGATE_API_KEY;
  let generatedKey: string | undefined;
  if (!key) {
    key = randomKey();
    generatedKey = key;
  } else if (key.length < MIN_PLATFORM_KEY_LENGTH) {
    // Checked here so the message names the variable the user set, not the generated config path (keys.0.key).
    throw new ConfigError([`MODELGATE_API_KEY: must be at least ${MIN_PLATFORM_KEY_LENGTH} characters (it has ${key.length}); unset it to get a random key printed at start`]);
  }
  return { config: { providers, models, keys: [{ id: 'default', key, models: ['*'] }] }, notices, generatedKey };
}
