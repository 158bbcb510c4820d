import { configSchema, referenceIssues, type GatewayConfig, type GatewayConfigInput } from './schema.js';

export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`Invalid modelgate config:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export type Env = Record<string, string | undefined>;

/** Replaces `${VAR}` in every string of a JSON value; every missing variable is reported. */
export function interpolateEnv(value: unknown, env: Env): unknown {
  const missing = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
        const found = env[name];
        if (found === undefined || found === '') {
          missing.add(name);
          return '';
        }
        return found;
      });
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value);
  if (missing.size > 0) {
    throw new ConfigError([...missing].map((name) => `environment variable ${name} is not set (referenced as \${${name}})`));
  }
  return out;
}

/** Fields whose case is easy to get wrong (`baseUrl`, `apikey`). */
const CASED_FIELDS = ['baseURL', 'apiKey', 'timeoutMs', 'upstreamModel', 'providerKeys', 'requestsPerMinute', 'tokensPerMinute', 'concurrentRequests', 'inputModalities'];

/** ` (did you mean "baseURL"?)` for an unknown key that is a known one in another case. */
function misspeltHint(issue: { code: string; keys?: unknown }): string {
  if (issue.code !== 'unrecognized_keys' || !Array.isArray(issue.keys)) return '';
  const hints = issue.keys.flatMap((k) => CASED_FIELDS.filter((f) => typeof k === 'string' && f.toLowerCase() === k.toLowerCase() && f !== k));
  return hints.length ? ` (did you mean ${hints.map((h) => `"${h}"`).join(', ')}?)` : '';
}

/** Validates a config object; throws one ConfigError listing every bad path. */
export function parseConfig(input: unknown, env?: Env): GatewayConfig {
  const interpolated = env ? interpolateEnv(input, env) : input;
  const result = configSchema.safeParse(interpolated);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}${misspeltHint(issue)}`);
    // Some field issues stop zod before the cross-reference check: add what it would have said.
    for (const extra of referenceIssues(interpolated)) if (!issues.includes(extra)) issues.push(extra);
    throw new ConfigError(issues);
  }
  return result.data;
}

/** Config file text -> the JSON value, `${VAR}` references left in place. */
export function readConfigJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`(file): not valid JSON: ${(err as Error).message}`]);
  }
}

/** Parses config file text (JSON with `${VAR}` references). */
export function parseConfigText(text: string, env: Env): GatewayConfig {
  return parseConfig(readConfigJson(text), env);
}

export function defineConfig(config: GatewayConfigInput): GatewayConfigInput {
  return config;
}
