import { posix } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { Clock } from '../../../shared/clock.js';
import type { ContainerSession, SessionOptions } from '../runtime.js';
import { interactiveShell, runCommand, runScript, SHELLS } from './shell.js';
import { type ShellContext, ShellExit, type ShellIo } from './shell-context.js';
import type { SimFs } from './sim-fs.js';
import { terminalLines } from './terminal-lines.js';

export interface SimSessionRequest {
  command: string[];
  env: Record<string, string>;
  workingDir?: string;
  hostname: string;
  fs: SimFs;
  clock: Clock;
  options: SessionOptions;
}

/** The exit code of a session killed before its end, as of a process killed by SIGKILL. */
export const KILLED_EXIT_CODE = 137;

class Killed extends Error {}

/** A terminal turns each line feed into carriage return and line feed. */
const onTerminal = (data: Buffer): Buffer => Buffer.from(data.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');

/** Writes and waits for room: a reader that stops reading stops the command. */
async function send(stream: PassThrough | undefined, data: Buffer, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw new Killed();
  if (!stream || stream.write(data)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    stream.once('drain', done);
    signal.addEventListener('abort', done);
  });
}

async function* chunksOf(stdin: Readable | undefined): AsyncIterable<Buffer> {
  if (stdin) for await (const chunk of stdin) yield chunk as Buffer;
}

/** Runs the command: `sh -c '…'`, `sh` reading stdin, or one command as argv. */
async function runTop(req: SimSessionRequest, sh: ShellContext, stdin: Readable | undefined): Promise<number> {
  const [program = '', ...args] = req.command;
  const interactive = SHELLS.has(posix.basename(program)) && args.length === 0 && req.options.stdin;
  if (interactive && req.options.tty) return interactiveShell(sh, terminalLines(chunksOf(stdin), (echo) => sh.io.out(echo)), true);
  if (interactive) return runScript((await readAll(stdin)).toString('utf8'), sh);
  return runCommand(req.command, sh);
}

async function readAll(stdin: Readable | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of chunksOf(stdin)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Ends a stream and resolves once its reader has read it all (or the session is killed). */
function drained(stream: PassThrough | undefined, signal: AbortSignal): Promise<void> {
  if (!stream) return Promise.resolve();
  stream.end();
  if (stream.readableEnded || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('end', resolve).once('close', resolve);
    signal.addEventListener('abort', () => resolve());
  });
}

/**
 * A command run in a sim container by its simulated shell (docs/runtime-sim.md), as a stream:
 * stdin, stdout and stderr as Node streams (with a tty, one terminal on stdout), an exit code.
 */
export function startSimSession(req: SimSessionRequest): ContainerSession {
  const { stdin: wantIn, stdout: wantOut, stderr: wantErr, tty } = req.options;
  const aborter = new AbortController();
  const stdin = wantIn ? new PassThrough() : undefined;
  const stdout = wantOut || tty ? new PassThrough() : undefined;
  const stderr = wantErr && !tty ? new PassThrough() : undefined;
  const io: ShellIo = {
    out: (data) => send(stdout, tty ? onTerminal(Buffer.from(data)) : Buffer.from(data), aborter.signal),
    err: (text) => send(tty ? stdout : stderr, tty ? onTerminal(Buffer.from(text)) : Buffer.from(text), aborter.signal),
    input: () => chunksOf(stdin),
  };
  const env: Record<string, string> = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOSTNAME: req.hostname, HOME: '/root', ...req.env };
  if (tty) env.TERM ??= 'xterm';
  const sh: ShellContext = { env, cwd: posix.resolve('/', req.workingDir ?? '/'), hostname: req.hostname, fs: req.fs, clock: req.clock, signal: aborter.signal, io };
  const exited = runTop(req, sh, stdin)
    .catch((err: unknown) => {
      if (err instanceof ShellExit) return err.code;
      if (err instanceof Killed || aborter.signal.aborted) return KILLED_EXIT_CODE;
      return io.err(`sh: ${(err as Error).message}\n`).then(() => 1, () => 1);
    })
    .then(async (code) => {
      stdin?.destroy();
      await Promise.all([drained(stdout, aborter.signal), drained(stderr, aborter.signal)]);
      return aborter.signal.aborted ? KILLED_EXIT_CODE : code;
    });
  return {
    ...(stdin ? { stdin } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    ...(tty ? { resize: () => undefined } : {}),
    exited,
    kill: () => {
      aborter.abort();
      stdin?.destroy();
      stdout?.destroy();
      stderr?.destroy();
    },
  };
}
