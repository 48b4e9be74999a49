import { spawn, type ChildProcess } from 'node:child_process';
import type { Clock } from '../../shared/clock.js';
import { signalGroup } from './proc-stat.js';
import { exitFromEvent } from './process-spawn.js';
import type { ExecResult } from './runtime.js';

/** How much of a command's output exec keeps: its first bytes, stdout and stderr as they came. */
export const EXEC_OUTPUT_LIMIT = 4096;
/** The exit code of a command killed at its timeout, as timeout(1) reports one. */
export const EXEC_TIMEOUT_EXIT_CODE = 124;
/** A command that could not be run: not found, or found but not executable (as a shell says). */
export const EXEC_NOT_FOUND_EXIT_CODE = 127;
export const EXEC_CANNOT_RUN_EXIT_CODE = 126;

export interface ExecRequest {
  command: string[];
  env: Record<string, string>;
  workingDir?: string;
  timeoutMs: number;
  clock: Clock;
}

/** The first `limit` bytes of what a command wrote. */
class OutputBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    if (this.size >= this.limit) return;
    const kept = chunk.subarray(0, this.limit - this.size);
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function cannotRun(file: string, err: NodeJS.ErrnoException): ExecResult {
  const notFound = err.code === 'ENOENT';
  const why = notFound ? 'executable file not found in $PATH' : err.code === 'EACCES' ? 'permission denied' : err.message;
  return { exitCode: notFound ? EXEC_NOT_FOUND_EXIT_CODE : EXEC_CANNOT_RUN_EXIT_CODE, output: `exec: "${file}": ${why}`, timedOut: false };
}

/** Kills the command and whatever it started in its process group; a gone group is fine. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
  } catch {
    // not ours to signal any more
  }
}

/**
 * Runs a command beside a container's process (CRI's ExecSync for the process runtime), in
 * its own process group: killed with that group after `timeoutMs` on the clock, and whatever
 * it leaves running in the group is killed when it ends. Never rejects: a command that cannot
 * be run ends with 127 (not found) or 126, and a message in the output.
 */
export function execCommand(req: ExecRequest): Promise<ExecResult> {
  const [file, ...args] = req.command;
  if (!file) return Promise.resolve({ exitCode: EXEC_CANNOT_RUN_EXIT_CODE, output: 'exec: no command given', timedOut: false });
  let child: ChildProcess;
  try {
    child = spawn(file, args, { cwd: req.workingDir, env: req.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    return Promise.resolve(cannotRun(file, err as NodeJS.ErrnoException));
  }
  return new Promise((resolve) => {
    const output = new OutputBuffer(EXEC_OUTPUT_LIMIT);
    let timedOut = false;
    let settled = false;
    const cancelTimeout = req.clock.setTimer(req.timeoutMs, () => {
      timedOut = true;
      killGroup(child);
    });
    const finish = (result: ExecResult): void => {
      if (settled) return;
      settled = true;
      cancelTimeout();
      resolve(result);
    };
    child.stdout!.on('data', (chunk: Buffer) => output.add(chunk));
    child.stderr!.on('data', (chunk: Buffer) => output.add(chunk));
    child.once('error', (err) => finish(cannotRun(file, err)));
    child.once('exit', () => killGroup(child)); // its leftovers would hold the pipes open
    child.once('close', (code, signal) => {
      const exitCode = timedOut ? EXEC_TIMEOUT_EXIT_CODE : exitFromEvent(code, signal).exitCode;
      finish({ exitCode, output: output.text(), timedOut });
    });
  });
}
