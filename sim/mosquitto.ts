import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { realClock } from '../shared/clock.js';
import { freePort } from './free-port.js';

/** The mosquitto binary: on PATH, or where Debian puts it (/usr/sbin is not on every PATH). */
function findMosquitto(): string | undefined {
  try {
    const found = execFileSync('sh', ['-c', 'command -v mosquitto'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    if (found) return found;
  } catch {
    // not on PATH
  }
  return ['/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto'].find((path) => existsSync(path));
}

export const MOSQUITTO = findMosquitto();

export interface MosquittoProcess {
  readonly port: number;
  /** Its process id (for its CPU time, in the benchmarks). */
  readonly pid: number;
  readonly url: string;
  /** SIGHUP: Mosquitto reads its password and ACL files again. */
  reload(): void;
  /** What it logged (the last lines), for failure messages. */
  log(): string;
  /** SIGTERM, SIGKILL if it lingers; resolves once it exited. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts Mosquitto on a port that was free a moment ago (it cannot pick one itself).
 * `configure(port)` writes the configuration for that port and returns its path. Another
 * process may take the port meanwhile: then it tries again with another one.
 */
export async function startMosquitto(configure: (port: number) => Promise<string>, attempts = 5): Promise<MosquittoProcess> {
  if (!MOSQUITTO) throw new Error('mosquitto is not installed');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const started = await tryStart(MOSQUITTO, await configure(port), port);
    if (typeof started !== 'string') return started;
    if (!/Address already in use/i.test(started) || attempt >= attempts) throw new Error(`mosquitto did not start on port ${port}:\n${started}`);
  }
}

/** The running broker, or what it logged before it exited. */
async function tryStart(bin: string, conf: string, port: number): Promise<MosquittoProcess | string> {
  const child = spawn(bin, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = once(child, 'exit').then(() => undefined);
  const running = new Promise<boolean>((resolve) => {
    const onData = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        lines.push(line);
        if (lines.length > 200) lines.shift();
        if (/ running$/.test(line)) resolve(true);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => resolve(false));
  });
  const cancel = realClock.setTimer(10_000, () => child.kill('SIGKILL'));
  const ok = await running;
  cancel();
  if (!ok) return lines.join('\n');
  return {
    port,
    pid: child.pid!,
    url: `mqtt://127.0.0.1:${port}`,
    reload: () => void child.kill('SIGHUP'),
    log: () => lines.join('\n'),
    stop: stopper(child, exited),
  };
}

function stopper(child: ChildProcess, exited: Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const cancel = realClock.setTimer(3_000, () => child.kill('SIGKILL'));
      await exited;
      cancel();
    })());
}
