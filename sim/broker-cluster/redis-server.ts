import { realClock } from '../../shared/clock.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../free-port.js';

/** Debian's redis-server (package redis-server). */
export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => existsSync(path));

export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  /** SIGTERM (SIGKILL if it lingers), then its temp dir is removed. Idempotent. */
  stop(): Promise<void>;
}

/**
 * A redis-server of its own for tests and benchmarks: a free loopback port, its own temp dir,
 * every write appended to its log (appendfsync always: what a member acknowledged survives a
 * restart of Redis too), no protected mode since it listens on loopback only.
 */
export async function startRedis(attempts = 5): Promise<RedisProcess> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed (Debian package redis-server)');
  const dir = await mkdtemp(join(tmpdir(), 'kedge-redis-'));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const started = await readyOrLog(child);
    if (started === true) return { url: `redis://127.0.0.1:${port}`, port, stop: stopper(child, dir) };
    if (!/Address already in use/i.test(started) || attempt >= attempts) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start on port ${port}:\n${started}`);
    }
  }
}

async function readyOrLog(child: ChildProcess): Promise<true | string> {
  const lines: string[] = [];
  const exited = once(child, 'exit');
  const ready = new Promise<true | string>((resolve) => {
    const onData = (chunk: Buffer): void => {
      lines.push(chunk.toString());
      if (/Ready to accept connections/.test(chunk.toString())) resolve(true);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => resolve(lines.join('')));
  });
  const cancel = realClock.setTimer(10_000, () => child.kill('SIGKILL'));
  const result = await ready;
  cancel();
  return result;
}

function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const cancel = realClock.setTimer(3_000, () => child.kill('SIGKILL'));
        await exited;
        cancel();
      }
      await rm(dir, { recursive: true, force: true });
    })());
}
