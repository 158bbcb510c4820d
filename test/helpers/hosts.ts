/**
 * The host matrix: starts one gateway inside each supported host and returns its base URL
 * (origin + mount prefix) and a stop function. In-process hosts (node:http, Express, Koa) get the
 * config object and GatewayOptions; Bun and Deno run test/hosts/*-server.ts as child processes and
 * get the config as JSON (so options with functions are not available there).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import Koa from 'koa';
import supertest from 'supertest';
import { modelgate as expressModelgate, principalFromUser } from '../../adapters/express.js';
import { modelgate as koaModelgate } from '../../adapters/koa.js';
import { serve } from '../../node/index.js';
import { createGateway, type Gateway, type GatewayConfigInput, type GatewayOptions, type Principal } from '../../src/index.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;

export type HostName = 'node' | 'express' | 'express-json' | 'koa' | 'bun' | 'deno';
export const HOSTS: readonly HostName[] = ['node', 'express', 'express-json', 'koa', 'bun', 'deno'];
export const IN_PROCESS_HOSTS: readonly HostName[] = ['node', 'express', 'express-json', 'koa'];

export interface HostSetup {
  config: GatewayConfigInput;
  /** Mount path, e.g. `/ai` (default). Use '' for the root. */
  prefix?: string;
  /** In-process hosts only. */
  options?: GatewayOptions;
  /** In-process hosts only: the host's own authenticated user becomes the principal. */
  principalFromHeader?: string;
}

export interface RunningHost {
  name: HostName;
  origin: string;
  /** origin + prefix; the OpenAI SDK's baseURL is `${baseURL}/v1`. */
  baseURL: string;
  /** The mount path (`/ai`, or '' at the root). */
  prefix: string;
  /**
   * supertest for requests that read the whole answer: on Express and Koa it is given the host app
   * itself (`supertest(app)`), elsewhere the running host's origin. Paths include the prefix.
   */
  http(): supertest.Agent;
  stop(): Promise<void>;
}

type Started = Omit<RunningHost, 'name' | 'prefix' | 'http'> & { app?: RequestListener };

/** Serves a host app (Express, Koa) on node:http at 127.0.0.1:0; stopping closes the server, then the gateway. */
async function serveHostApp(app: RequestListener, prefix: string, gateway: Gateway): Promise<Started> {
  const server = createServer(app);
  const origin = await new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
  return {
    origin,
    baseURL: origin + prefix,
    app,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await gateway.close();
    },
  };
}

/** The host-side "user" a test header stands for, as a host auth middleware would set it. */
function userFrom(header: string | string[] | undefined): { id: string; models?: string[] } | undefined {
  if (typeof header !== 'string' || !header) return undefined;
  const [id, models] = header.split(':');
  return { id: id ?? header, ...(models ? { models: models.split(',') } : {}) };
}

async function startExpress(setup: HostSetup, withJson: boolean): Promise<Started> {
  const gateway = createGateway(setup.config, setup.options);
  const prefix = setup.prefix ?? '/ai';
  const app = express();
  // The host's own middleware runs first.
  app.use((req, res, next) => {
    res.setHeader('x-host', 'express');
    const user = setup.principalFromHeader ? userFrom(req.headers[setup.principalFromHeader]) : undefined;
    if (user) (req as typeof req & { user?: unknown }).user = user;
    next();
  });
  if (withJson) app.use(express.json({ limit: '50mb' }));
  app.get(`${prefix}/host-route`, (_req, res) => {
    res.json({ host: 'express' });
  });
  const mw = expressModelgate(gateway, setup.principalFromHeader ? { principal: principalFromUser } : {});
  if (prefix) app.use(prefix, mw);
  else app.use(mw);
  app.use((_req, res) => {
    res.status(404).json({ host404: true });
  });
  return serveHostApp(app, prefix, gateway);
}

async function startKoa(setup: HostSetup): Promise<Started> {
  const gateway = createGateway(setup.config, setup.options);
  const prefix = setup.prefix ?? '/ai';
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.set('x-host', 'koa');
    const user = setup.principalFromHeader ? userFrom(ctx.get(setup.principalFromHeader)) : undefined;
    if (user) ctx.state.user = user;
    await next();
  });
  app.use(async (ctx, next) => {
    if (ctx.path === `${prefix}/host-route`) ctx.body = { host: 'koa' };
    else await next();
  });
  app.use(
    koaModelgate(gateway, {
      prefix,
      ...(setup.principalFromHeader
        ? { principal: (ctx) => (ctx.state as { user?: Principal }).user }
        : {}),
    }),
  );
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { host404: true };
  });
  return serveHostApp(app.callback(), prefix, gateway);
}

async function startNode(setup: HostSetup): Promise<Started> {
  const gateway = createGateway(setup.config, setup.options);
  const prefix = setup.prefix ?? '/ai';
  const running = await serve(gateway, {
    port: 0,
    prefix,
    ...(setup.principalFromHeader ? { principal: (req) => userFrom(req.headers[setup.principalFromHeader as string]) } : {}),
  });
  return {
    origin: running.url,
    baseURL: running.url + prefix,
    stop: async () => {
      running.server.closeAllConnections();
      await running.close();
      await gateway.close();
    },
  };
}

/** Command line that runs a test/hosts script in Bun or Deno. */
function childCommand(host: 'bun' | 'deno', script: string): { cmd: string; args: string[] } {
  if (host === 'bun') return { cmd: `${BIN}bun`, args: [script] };
  return { cmd: `${BIN}deno`, args: ['run', '--allow-net', '--allow-env', '--allow-read', '--unstable-sloppy-imports', script] };
}

/**
 * Spawns a child and waits for its `LISTENING <url>` line. The child gets this process's env plus
 * `env`, or only `env` with `inheritEnv: false` (a cleaned env must stay clean: no REDIS_URL, ...).
 */
export async function spawnListening(cmd: string, args: string[], env: Record<string, string>, inheritEnv = true): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...(inheritEnv ? process.env : {}), NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /LISTENING (\S+)/.exec(out) ?? /listening on (http\S+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`${cmd} exited with ${code} before listening:\n${out}`)));
    child.once('error', reject);
  });
  return { child, url, output: () => out };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function startChild(host: 'bun' | 'deno', setup: HostSetup): Promise<Started> {
  if (setup.options || setup.principalFromHeader) throw new Error(`${host} host: options cannot cross the process boundary`);
  const prefix = setup.prefix ?? '/ai';
  const { cmd, args } = childCommand(host, `test/hosts/${host}-server.ts`);
  const { child, url } = await spawnListening(cmd, args, { MODELGATE_TEST_CONFIG: JSON.stringify(setup.config), MODELGATE_TEST_PREFIX: prefix });
  return { origin: url, baseURL: url + prefix, stop: () => stopChild(child) };
}

export async function startHost(name: HostName, setup: HostSetup): Promise<RunningHost> {
  let started: Started;
  switch (name) {
    case 'node':
      started = await startNode(setup);
      break;
    case 'express':
      started = await startExpress(setup, false);
      break;
    case 'express-json':
      started = await startExpress(setup, true);
      break;
    case 'koa':
      started = await startKoa(setup);
      break;
    case 'bun':
    case 'deno':
      started = await startChild(name, setup);
      break;
  }
  const { app, ...running } = started;
  return { name, ...running, prefix: setup.prefix ?? '/ai', http: () => supertest(app ?? running.origin) };
}
