// temporary: gateway CPU per streamed request at 1 and 16 connections (sequential loops), from /proc
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { OPENAI_HEADERS, openAIBody } from './scenarios.js';
import { MODEL_VIA_OPENAI } from './settings.js';
const start = (file: string, env: Record<string, string>) => new Promise<{ url: string; pid: number }>((resolve) => {
  const c = fork(file, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env } });
  c.on('message', (m: { type: string; url: string }) => { if (m.type === 'ready') resolve({ url: m.url, pid: c.pid as number }); });
});
const mock = await start('bench/mock-upstream.ts', {});
const gw = await start('bench/gateway-server.ts', { BENCH_UPSTREAM: mock.url });
const cpu = () => { const f = readFileSync(`/proc/${gw.pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const stream = process.env.SYNC ? false : true;
const body = openAIBody(MODEL_VIA_OPENAI, stream);
const run = async (conns: number, n: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: conns });
  const u = new URL('/v1/chat/completions', gw.url);
  const one = () => new Promise<void>((resolve) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { ...OPENAI_HEADERS, 'content-length': Buffer.byteLength(body) } }, (res) => { res.on('data', () => {}); res.on('end', () => resolve()); });
    req.end(body);
  });
  const c0 = cpu();
  await Promise.all(Array.from({ length: conns }, async () => { for (let i = 0; i < n / conns; i++) await one(); }));
  return (cpu() - c0) / n;
};
await run(8, 3000);
const out: string[] = [];
for (let r = 0; r < 5; r++) out.push(`c1 ${(await run(1, 2000)).toFixed(0)} c16 ${(await run(16, 4000)).toFixed(0)}`);
console.log(process.env.LABEL, stream ? 'stream' : 'sync', out.join(' | '));
process.exit(0);
