import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LOG_SHIM_SOURCE } from './process-logs.js';
import { identify } from './proc-stat.js';
import type { ContainerInfo } from './runtime.js';

export type ExitInfo = Required<Pick<ContainerInfo, 'exitCode' | 'reason'>>;

/** An adopted process that ended while nobody watched, with no exit file to tell how. */
export const UNKNOWN_EXIT: ExitInfo = { exitCode: 255, reason: 'Unknown' };

export const CONTAINERS_DIR = 'containers';

/**
 * Where a container's files live in the edge's data directory: absolute, since the shim runs
 * in the container's working directory.
 */
export function containerPaths(dataDir: string, id: string): { log: string; exit: string; pid: string; stdin: string } {
  const base = resolve(dataDir, CONTAINERS_DIR, id);
  return { log: `${base}.log`, exit: `${base}.exit`, pid: `${base}.pid`, stdin: `${base}.stdin` };
}

export async function removeContainerFiles(dataDir: string, id: string): Promise<void> {
  const { log, exit, pid, stdin } = containerPaths(dataDir, id);
  await Promise.all([log, `${log}.1`, exit, `${exit}.tmp`, pid, stdin].map((path) => rm(path, { force: true })));
}

/** The exit the shim recorded, if it lived to record one. */
export async function readExitFile(path: string): Promise<ExitInfo | undefined> {
  try {
    const saved = JSON.parse(await readFile(path, 'utf8')) as ExitInfo;
    return Number.isInteger(saved.exitCode) ? saved : undefined;
  } catch {
    return undefined;
  }
}

/** The exit of a child of this process: the shim's record, else what the exit event says. */
export function exitFromEvent(code: number | null, signal: NodeJS.Signals | null): ExitInfo {
  if (code !== null) return { exitCode: code, reason: code === 0 ? 'Completed' : 'Error' };
  const signals: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2, SIGHUP: 1 };
  return { exitCode: 128 + (signals[signal ?? ''] ?? 0), reason: 'Error' };
}

/** A container's environment as its processes see it: the edge's PATH unless the spec sets one. */
export function containerEnv(env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
}

export interface SpawnRequest {
  dataDir: string;
  id: string;
  command: string[];
  args: string[];
  env: Record<string, string>;
  workingDir?: string;
  maxLogBytes: number;
  /** The container keeps a stdin open (ContainerConfig.stdin): a FIFO attach writes to. */
  stdin?: boolean;
}

/** A shim that runs and waits to be let go; until then it runs nothing. */
export interface Shim {
  child: ChildProcess;
  pid: number;
  startTime: string | undefined;
  /** The machine's boot it runs in. */
  bootId: string | undefined;
  /** Lets it start the container; resolves once it says it has (or has ended). */
  release(): Promise<void>;
}

/**
 * Starts a container's log shim, detached into its own process group (and session) so that it
 * and the container outlive the edge process; undefined when it cannot even be started. The
 * shim waits for `release()`: write its pid down first, so no container runs unrecorded.
 */
export async function spawnShim(req: SpawnRequest): Promise<Shim | undefined> {
  if (req.workingDir !== undefined && !(await isDirectory(req.workingDir))) return undefined;
  const { log, exit, pid, stdin } = containerPaths(req.dataDir, req.id);
  const stdinPath = req.stdin && (await makeFifo(stdin)) ? stdin : '';
  const [executable, ...rest] = req.command;
  const argv = ['-e', LOG_SHIM_SOURCE, '--', log, exit, pid, String(req.maxLogBytes), stdinPath, executable!, ...rest, ...req.args];
  const child = spawn(process.execPath, argv, { detached: true, stdio: ['pipe', 'pipe', 'ignore'], cwd: req.workingDir, env: req.env });
  child.on('error', () => undefined); // a failed spawn shows as no pid below, then an exit
  child.stdin!.on('error', () => undefined); // a shim that died before it was let go
  child.unref();
  if (child.pid === undefined) return undefined;
  const { startTime, bootId } = await identify(child.pid);
  return { child, pid: child.pid, startTime, bootId, release: () => release(child) };
}

function release(child: ChildProcess): Promise<void> {
  child.stdin!.end('go\n');
  unrefPipe(child.stdin!);
  return shimUp(child);
}

/** A pipe to a shim must not keep the edge process alive. */
function unrefPipe(pipe: object): void {
  (pipe as { unref?: () => void }).unref?.();
}

/** Resolves once the shim has said "up" (or ended): it then stands between the edge and the container. */
function shimUp(child: ChildProcess): Promise<void> {
  const stdout = child.stdout!;
  return new Promise((resolve) => {
    const done = (): void => {
      stdout.destroy(); // the pipe must not tie the shim to the edge process
      unrefPipe(stdout);
      resolve();
    };
    stdout.once('data', done);
    stdout.once('end', done);
    child.once('exit', done);
  });
}

/** A FIFO at `path` (mkfifo(1); Node has no mkfifo): false when it cannot be made, and the container then has no stdin. */
function makeFifo(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('mkfifo', ['-m', '600', path], (err) => resolve(!err));
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
