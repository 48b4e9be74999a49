import { posix } from 'node:path';
import type { Clock } from '../../../shared/clock.js';
import type { SimFs } from './sim-fs.js';

/** What a simulated command reads and writes. */
export interface ShellIo {
  /** Writes to stdout; resolves when the reader has room again (backpressure). */
  out(data: string | Buffer): Promise<void>;
  err(text: string): Promise<void>;
  /** The command's stdin, chunk by chunk, to its end (nothing without one). */
  input(): AsyncIterable<Buffer>;
}

/** The shell a command runs in: its container's env, directory and files. */
export interface ShellContext {
  env: Record<string, string>;
  cwd: string;
  hostname: string;
  fs: SimFs;
  clock: Clock;
  /** Aborted when the session is killed: a sleeping command ends. */
  signal: AbortSignal;
  io: ShellIo;
}

/** `exit N`: ends the whole script with N. */
export class ShellExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export type Builtin = (args: string[], sh: ShellContext) => Promise<number>;

/** A path of the command's, resolved against the shell's directory. */
export const absolute = (sh: ShellContext, path: string): string => posix.resolve(sh.cwd, path);

/** Options (-l, -p, …) apart from operands, as the letters given. */
export function splitOptions(args: string[]): { flags: Set<string>; operands: string[] } {
  const flags = new Set<string>();
  const operands: string[] = [];
  let done = false;
  for (const arg of args) {
    if (!done && arg === '--') done = true;
    else if (!done && /^-[A-Za-z]+$/.test(arg)) for (const letter of arg.slice(1)) flags.add(letter);
    else operands.push(arg);
  }
  return { flags, operands };
}
