import type { Readable } from 'node:stream';
import type { ContainerSession, SessionOptions } from '../../edge/runtime/runtime.js';

export const PIPES: SessionOptions = { stdin: false, stdout: true, stderr: true, tty: false };
export const WITH_STDIN: SessionOptions = { ...PIPES, stdin: true };
export const TTY: SessionOptions = { stdin: true, stdout: true, stderr: false, tty: true };

/** Everything a readable gives, as text, as it comes. */
export function textOf(stream: Readable | undefined): { text: () => string } {
  let text = '';
  stream?.on('data', (chunk: Buffer | string) => (text += chunk.toString()));
  return { text: () => text };
}

/** Reads a session to its end: its exit code, stdout and stderr. */
export async function finished(session: ContainerSession): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const [out, err] = [textOf(session.stdout), textOf(session.stderr)];
  const exitCode = await session.exited;
  return { exitCode, stdout: out.text(), stderr: err.text() };
}

/** The process group exists (some process in it runs or is a zombie). */
export function groupExists(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}
