import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { Clock } from '../shared/clock.js';
import { distDir } from '../shared/repo-paths.js';

/** The compiled `kedge` entry point in dist/ (also when this module runs from source, under vitest). */
export const kedgeBin = join(distDir, 'bin', 'kedge.js');

/** The value of `key=` in a role's ready line (e.g. `api=` in "kedge cloud ready api=…"). */
export function readyField(line: string, key: string): string {
  const value = new RegExp(`\\b${key}=(\\S+)`).exec(line)?.[1];
  if (!value) throw new Error(`no ${key}= in "${line}"`);
  return value;
}

export interface RoleProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the first stdout line matching `readyPattern`; rejects if the process exits first. */
  readonly ready: Promise<string>;
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** kill -9, as a crash or a pulled power cord. */
  kill(): Promise<void>;
  /**
   * Closes its stdin, as this process's death would: the role stops as it does when its parent
   * goes (a demo's edge then shuts its node down). SIGKILL after `graceMs`; resolves once it is gone.
   */
  stopAsParent(graceMs: number): Promise<void>;
}

export interface RoleOptions {
  name: string;
  args: string[];
  readyPattern: RegExp;
  clock: Clock;
  /** Receives every output line, prefixed by the role name. */
  onLine?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** A command that runs the role, e.g. ['ip', 'netns', 'exec', ns] to start it in a network namespace. */
  within?: readonly string[];
  /** The kedge entry point to run; default kedgeBin (an installed package's, for instance). */
  entry?: string;
  /**
   * In a process group of its own: a terminal's Ctrl-C (sent to its whole foreground group)
   * then reaches only this process's parent, which ends the role as it chooses.
   */
  ownProcessGroup?: boolean;
}

/**
 * V8's CPU profiler for the roles KEDGE_CPU_PROF_ROLES names (comma-separated, or `*`), written
 * to KEDGE_CPU_PROF_DIR when the role exits (not on SIGKILL). Node refuses --cpu-prof in NODE_OPTIONS.
 */
function profilerArgs(role: string): string[] {
  const dir = process.env.KEDGE_CPU_PROF_DIR;
  const roles = process.env.KEDGE_CPU_PROF_ROLES?.split(',') ?? ['*'];
  if (!dir || !(roles.includes('*') || roles.includes(role))) return [];
  return ['--cpu-prof', '--cpu-prof-dir', dir];
}

/** Starts `kedge <args>` as a child process that also exits when this process dies. */
export function startRole(options: RoleOptions): RoleProcess {
  const [command, ...prefix] = [...(options.within ?? []), process.execPath];
  const child = spawn(command!, [...prefix, ...profilerArgs(options.name), options.entry ?? kedgeBin, ...options.args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
    env: { ...process.env, ...options.env, KEDGE_EXIT_WITH_PARENT: '1' },
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const recent: string[] = [];
  const seen = (line: string): void => {
    options.onLine?.(`[${options.name}] ${line}`);
    recent.push(line);
    if (recent.length > 20) recent.shift();
  };
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      seen(line);
      if (options.readyPattern.test(line)) resolve(line);
    });
    createInterface({ input: child.stderr! }).on('line', seen);
    void exited.then((code) => reject(new Error(`${options.name} exited with code ${code} before it was ready:\n${recent.join('\n')}`)));
  });
  ready.catch(() => {});
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  /** Asks it to end (`ask`), SIGKILL after `graceMs`; resolves once it is gone. */
  const endWithin = async (ask: () => void, graceMs: number): Promise<void> => {
    if (gone()) return;
    ask();
    const cancel = options.clock.setTimer(graceMs, () => child.kill('SIGKILL'));
    await exited;
    cancel();
  };
  return {
    name: options.name,
    child,
    ready,
    exited,
    stop: (graceMs = 5_000) => endWithin(() => child.kill('SIGTERM'), graceMs),
    async kill() {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
    stopAsParent: (graceMs) => endWithin(() => child.stdin!.end(), graceMs),
  };
}
