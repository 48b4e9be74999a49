import { spawn, type StdioOptions } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { signalGroup } from '../proc-stat.js';
import { exitFromEvent } from '../process-spawn.js';
import type { ContainerSession, SessionOptions } from '../runtime.js';
import { SESSION_HELPER_SOURCE } from './session-helper.js';

export interface SessionRequest {
  command: string[];
  env: Record<string, string>;
  workingDir?: string;
  options: SessionOptions;
  /** The python3 to run the helper with; none: no helper (no resize, and only a clean edge exit kills what runs). */
  python?: string;
}

/** What runs for a request: the helper (pipe or tty mode), or without one, the command itself or `script` for a tty. */
function invocation(req: SessionRequest): { file: string; args: string[] } {
  const { command, options, python } = req;
  if (python) return { file: python, args: ['-c', SESSION_HELPER_SOURCE, options.tty ? 'tty' : 'pipe', ...command] };
  if (options.tty) return { file: 'script', args: ['-qfec', command.map(shellQuote).join(' '), '/dev/null'] };
  return { file: command[0]!, args: command.slice(1) };
}

export const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

function stdioOf(req: SessionRequest): StdioOptions {
  const { stdin, stdout, stderr, tty } = req.options;
  const io: StdioOptions = [stdin ? 'pipe' : 'ignore', stdout || tty ? 'pipe' : 'ignore', stderr && !tty ? 'pipe' : 'ignore'];
  return req.python ? [...io, 'pipe'] : io;
}

/**
 * Starts a command for a stream (exec) in its own process group, its standard streams as
 * pipes (a reader that stops reading stops it) or a pseudo-terminal. `kill` and the end of the
 * command kill the whole group; so does the edge process's end (docs/runtime-sim.md, process runtime).
 */
export function startSession(req: SessionRequest): ContainerSession {
  if (!req.command[0]) throw new Error('no command given');
  const { file, args } = invocation(req);
  const child = spawn(file, args, { cwd: req.workingDir, env: req.env, detached: true, stdio: stdioOf(req) });
  const control = req.python ? (child.stdio[3] as Duplex) : undefined;
  const groups = new Set<number>(child.pid === undefined ? [] : [child.pid]);
  control?.setEncoding('utf8');
  control?.on('data', (text: string) => {
    const match = /pid (\d+)/.exec(text);
    if (match) groups.add(Number(match[1]));
  });
  control?.on('error', () => undefined);
  const killAll = (): void => {
    for (const group of groups) signalGroup(group, 'SIGKILL');
  };
  // The helper sees the edge go (its socket closes); without one, only a clean exit is seen.
  const onEdgeExit = (): void => killAll();
  if (!control) process.once('exit', onEdgeExit);
  child.stdin?.on('error', () => undefined); // a command that stopped reading
  const exited = new Promise<number>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ENOENT' ? 127 : 126));
    child.once('exit', () => killAll()); // its leftovers would hold the pipes open
    child.once('close', (code, signal) => resolve(exitFromEvent(code, signal).exitCode));
  });
  void exited.finally(() => {
    process.removeListener('exit', onEdgeExit);
    control?.destroy();
  });
  return {
    ...(child.stdin ? { stdin: child.stdin } : {}),
    ...(child.stdout ? { stdout: child.stdout } : {}),
    ...(child.stderr ? { stderr: child.stderr } : {}),
    ...(req.options.tty && control ? { resize: (width: number, height: number) => void (control.writable && control.write(`resize ${width} ${height}\n`)) } : {}),
    exited,
    kill: () => {
      killAll();
      control?.destroy();
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy(); // unread output must not hold `exited`
    },
  };
}

