/** Parent side: starts a bench server as its own node process and waits for its URL. */
import { fork, type ChildProcess } from 'node:child_process';

export interface BenchChild {
  name: string;
  url: string;
  pid: number;
  /** CPU time (user + system) the child has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** `file`: a compiled .js (plain node) or a .ts (run through tsx). */
export async function startChild(name: string, file: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<BenchChild> {
  const child: ChildProcess = fork(file, [], {
    execArgv: [...(file.endsWith('.ts') ? ['--import', 'tsx'] : []), ...nodeArgs],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 30 s`)), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${name} exited early with code ${code}`)));
    child.on('message', (msg: unknown) => {
      const m = msg as { type?: string; url?: string };
      if (m.type === 'ready' && m.url) {
        clearTimeout(timer);
        resolve(m.url);
      }
    });
  });
  child.removeAllListeners('exit');
  const pid = child.pid ?? -1;
  const cpuWaiters: Array<(micros: number) => void> = [];
  child.on('message', (msg: unknown) => {
    const m = msg as { type?: string; micros?: number };
    if (m.type === 'cpu' && typeof m.micros === 'number') cpuWaiters.shift()?.(m.micros);
  });
  return {
    name,
    url,
    pid,
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        cpuWaiters.push(resolve);
        child.send({ type: 'cpu' });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        // Generous grace period: a child writing a CPU profile needs a moment.
        const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        if (child.connected) child.send({ type: 'stop' });
        else child.kill('SIGTERM');
      }),
  };
}
