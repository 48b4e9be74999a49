import { spawn } from 'node:child_process';
import { realClock } from '../../shared/clock.js';

export interface ShellRun {
  code: number | null;
  output: string;
  elapsedMs: number;
  /** Killed (with every process it started) for running past its limit. */
  timedOut: boolean;
}

export interface ShellOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  limitMs: number;
  /** Lines run first, in the same shell (earlier `export`s and `cd`s). */
  preamble?: readonly string[];
}

/** `command` as bash runs it pasted into a terminal, without a terminal: no stdin; killed with its process group past `limitMs`. */
export function runShellLine(command: string, o: ShellOptions): Promise<ShellRun> {
  const started = realClock.now();
  const child = spawn('bash', ['-c', [...(o.preamble ?? []), command].join('\n')], {
    cwd: o.cwd,
    env: o.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let timedOut = false;
  const cancel = realClock.setTimer(o.limitMs, () => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      cancel();
      resolve({ code, output, elapsedMs: realClock.now() - started, timedOut });
    });
  });
}
