/**
 * Runs the real agent CLIs (Claude Code, Gemini CLI) as child processes against a base URL, the
 * way users point them at a gateway: scratch HOME and workspace, a minimal environment (nothing
 * inherited but PATH, so no real keys or proxies leak in), no telemetry or update checks, and a
 * hard kill after a timeout.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Claude Code ships a native binary; `node_modules/.bin/claude` links to it. */
export const CLAUDE_BIN = join(ROOT, 'node_modules/.bin/claude');
/** Gemini CLI is a node script; run it with this node so no `node` on PATH is needed. */
export const GEMINI_BIN = join(ROOT, 'node_modules/@google/gemini-cli/bundle/gemini.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface CliOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
}

export function runCli(o: CliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(o.command, o.args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

export interface Scratch {
  home: string;
  workspace: string;
  tmp: string;
  cleanup(): Promise<void>;
}

/** A fresh HOME, an empty workspace directory (the CLI's cwd) and a TMPDIR. */
export async function makeScratch(): Promise<Scratch> {
  const base = await mkdtemp(join(tmpdir(), 'modelgate-agent-'));
  const home = join(base, 'home');
  const workspace = join(base, 'workspace');
  const tmp = join(base, 'tmp');
  for (const dir of [home, workspace, tmp]) await mkdir(dir, { recursive: true });
  return { home, workspace, tmp, cleanup: () => rm(base, { recursive: true, force: true }) };
}

function baseEnv(s: Scratch): Record<string, string> {
  // The CLIs write crash reports and caches to TMPDIR; keep them inside the scratch directory.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s.home, TMPDIR: s.tmp, LANG: 'C.UTF-8', NO_COLOR: '1' };
}

export interface ClaudeRunOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /** What Claude Code uses for background/small tasks (haiku); route it too. */
  smallFastModel: string;
  prompt: string;
  timeoutMs: number;
}

/** `claude -p <prompt> --model <model>` with ANTHROPIC_BASE_URL pointing at `baseURL`. */
export async function runClaude(o: ClaudeRunOptions): Promise<CliRun> {
  const s = await makeScratch();
  try {
    return await runCli({
      command: CLAUDE_BIN,
      args: ['-p', o.prompt, '--model', o.model],
      cwd: s.workspace,
      timeoutMs: o.timeoutMs,
      env: {
        ...baseEnv(s),
        ANTHROPIC_BASE_URL: o.baseURL,
        ANTHROPIC_API_KEY: o.apiKey,
        ANTHROPIC_SMALL_FAST_MODEL: o.smallFastModel,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: o.smallFastModel,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        // A failing call should fail the run at once, not after ten backed-off retries.
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
    });
  } finally {
    await s.cleanup();
  }
}

export interface GeminiRunOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs: number;
}

/** Settings of a user who logged in with an API key and turned off telemetry and update checks. */
const GEMINI_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/** `gemini -p <prompt> -m <model>` with GOOGLE_GEMINI_BASE_URL pointing at `baseURL`. */
export async function runGemini(o: GeminiRunOptions): Promise<CliRun> {
  const s = await makeScratch();
  try {
    await mkdir(join(s.home, '.gemini'), { recursive: true });
    await writeFile(join(s.home, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS));
    return await runCli({
      command: process.execPath,
      args: [GEMINI_BIN, '-p', o.prompt, '-m', o.model],
      cwd: s.workspace,
      timeoutMs: o.timeoutMs,
      env: {
        ...baseEnv(s),
        GOOGLE_GEMINI_BASE_URL: o.baseURL,
        GEMINI_API_KEY: o.apiKey,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      },
    });
  } finally {
    await s.cleanup();
  }
}

/** Everything needed to see why a run failed, for assertion messages. */
export function describeRun(run: CliRun): string {
  const cut = (s: string) => (s.length > 4000 ? `${s.slice(0, 2000)}\n...\n${s.slice(-2000)}` : s);
  return `exit=${String(run.code)} signal=${String(run.signal)} timedOut=${run.timedOut}\n--- stdout ---\n${cut(run.stdout)}\n--- stderr ---\n${cut(run.stderr)}`;
}

/** Codex CLI is a node launcher around a native binary; run it with this node. */
export const CODEX_BIN = join(ROOT, 'node_modules/@openai/codex/bin/codex.js');

export interface CodexRunOptions {
  /** The gateway's OpenAI base URL, e.g. http://127.0.0.1:PORT/v1. */
  baseURL: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs: number;
  /** Extra `codex exec` arguments (placed before the prompt). */
  extraArgs?: string[];
}

/**
 * `codex exec <prompt> -m <model>` with a custom model provider speaking the Responses wire API
 * ($CODEX_HOME/config.toml), as users point Codex at a gateway. Only what keeps the run local is
 * set (no update check, no analytics, no plugin sync); tools and everything else stay at Codex's
 * defaults. The key reaches Codex through the provider's `env_key`.
 */
export async function runCodex(o: CodexRunOptions): Promise<CliRun> {
  const s = await makeScratch();
  try {
    const codexHome = join(s.home, '.codex');
    await mkdir(codexHome, { recursive: true });
    const config = [
      'model_provider = "modelgate"',
      `model = ${JSON.stringify(o.model)}`,
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      '',
      '[model_providers.modelgate]',
      'name = "modelgate"',
      `base_url = ${JSON.stringify(o.baseURL)}`,
      'env_key = "MODELGATE_API_KEY"',
      'wire_api = "responses"',
      // A failing call should fail the run at once, not after backed-off retries.
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n');
    await writeFile(join(codexHome, 'config.toml'), config);
    return await runCli({
      command: process.execPath,
      args: [CODEX_BIN, 'exec', '--skip-git-repo-check', ...(o.extraArgs ?? []), o.prompt],
      cwd: s.workspace,
      timeoutMs: o.timeoutMs,
      env: { ...baseEnv(s), CODEX_HOME: codexHome, MODELGATE_API_KEY: o.apiKey, RUST_LOG: 'warn' },
    });
  } finally {
    await s.cleanup();
  }
}
