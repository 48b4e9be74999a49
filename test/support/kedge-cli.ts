import { execFile } from 'node:child_process';
import { constants } from 'node:os';
import { kedgeBin } from '../../sim/role-process.js';

export interface CliRun {
  /** As a shell says it: 128 + the signal's number for a process killed by one (137: SIGKILL, as at a deadline). */
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Killed (SIGKILL) after this long, so that a command that hangs fails its test and leaves no process behind. */
  timeoutMs?: number;
}

/** A command as a child process, to its end. */
export function run(command: string, args: string[], o: RunOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: o.cwd, env: o.env, timeout: o.timeoutMs ?? 0, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = !err ? 0 : typeof err.code === 'number' ? err.code : err.signal ? 128 + constants.signals[err.signal] : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `kedge <args>` as a child process (the compiled CLI, as a user runs it). */
export function kedge(...args: string[]): Promise<CliRun> {
  return run(process.execPath, [kedgeBin, ...args]);
}
