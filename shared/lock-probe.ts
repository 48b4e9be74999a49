import { chmod, lstat } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';

/**
 * Whether a holder of a data dir still runs, for a process that cannot see its pid (another
 * container of the same machine: another pid namespace). The holder listens on a Unix socket
 * in the data dir while it holds it; on the same kernel, from any container that shares the
 * directory, a connection to it is taken while the holder runs (by the kernel, however busy
 * the holder is) and refused once it is gone.
 */
export interface LockProbe {
  /** The socket's file name in the data dir. */
  readonly name: string;
  /** Stops listening and removes the socket. */
  close(): Promise<void>;
}

/** sun_path holds 108 bytes with its NUL; a longer path is cut short without a word, and names another file. */
const fitsSocketPath = (path: string): boolean => Buffer.byteLength(path) <= 107;

/** Listens on `<dir>/<name>`; undefined where no socket can be made there (a filesystem without them, a path too long). */
export async function listenProbe(dir: string, name: string): Promise<LockProbe | undefined> {
  const path = join(dir, name);
  if (!fitsSocketPath(path)) return undefined;
  const server = createServer((socket) => socket.destroy());
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(path, () => resolve(true));
  });
  if (!listening) return undefined;
  server.on('error', () => undefined); // a connection it failed to take (no file descriptor left) tells nobody anything
  server.unref();
  const close = (): Promise<void> => new Promise((resolve) => server.close(() => resolve())); // closing removes the socket
  const made = (await lstat(path).then((stat) => stat.isSocket(), () => false)) && (await chmod(path, 0o600).then(() => true, () => false)); // owner-only, as everything in a data dir
  if (made) return { name, close };
  await close();
  return undefined;
}

/** What a holder's socket says: it answers (the holder runs), it is refused or gone (the holder is gone), or it cannot be asked. */
export function askProbe(path: string): Promise<'answers' | 'refused' | 'unknown'> {
  if (!fitsSocketPath(path)) return Promise.resolve('unknown');
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve('answers');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'refused' : 'unknown'));
  });
}
