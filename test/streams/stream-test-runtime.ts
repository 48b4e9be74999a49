import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { ContainerSession, SessionOptions } from '../../edge/runtime/runtime.js';

/** A real `sh -c script` as a container session: its pipes, its exit code; `kill` sends SIGKILL. */
export function shellSession(script: string, options: SessionOptions, started: ChildProcess[] = []): ContainerSession {
  const child = spawn('sh', ['-c', script], { stdio: [options.stdin ? 'pipe' : 'ignore', options.stdout ? 'pipe' : 'ignore', options.stderr ? 'pipe' : 'ignore'] });
  started.push(child);
  return {
    ...(child.stdin ? { stdin: child.stdin } : {}),
    ...(child.stdout ? { stdout: child.stdout } : {}),
    ...(child.stderr ? { stderr: child.stderr } : {}),
    exited: new Promise((resolve) => child.once('close', (code, signal) => resolve(code ?? (signal ? 137 : 0)))),
    kill: () => child.kill('SIGKILL'),
  };
}

/** A session of PassThroughs the test drives: it writes the process's output and reads its input. */
export function passThroughSession(stdinHighWaterMark = 16 * 1024) {
  const stdin = new PassThrough({ highWaterMark: stdinHighWaterMark });
  stdin.pause();
  const stdout = new PassThrough();
  const resizes: [number, number][] = [];
  let exit!: (code: number) => void;
  let killed = 0;
  const session: ContainerSession = {
    stdin,
    stdout,
    resize: (w, h) => void resizes.push([w, h]),
    exited: new Promise<number>((resolve) => (exit = resolve)),
    kill: () => {
      killed++;
      stdout.destroy();
    },
  };
  return { session, stdin, stdout, resizes, exit: (code: number) => exit(code), killed: () => killed };
}
