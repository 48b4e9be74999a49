import { execFile } from 'node:child_process';
import { kedgeBin } from '../../sim/role-process.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `kedge <args>` as a child process (the compiled CLI, as a user runs it). */
export function kedge(...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [kedgeBin, ...args], (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
