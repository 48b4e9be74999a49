import { constants, open as openFd } from 'node:fs';
import { promisify } from 'node:util';
import { Socket } from 'node:net';
import type { Clock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import type { ContainerSession, SessionOptions } from '../runtime.js';
import { followShimLog } from './shim-log-follow.js';

export interface ShimAttachRequest {
  name: string;
  /** The shim's files: its log, and the container's stdin FIFO. */
  paths: { log: string; stdin: string };
  /** The container was created with stdin (its shim holds the FIFO). */
  hasStdin: boolean;
  clock: Clock;
  options: SessionOptions;
  /** Settles with the container's exit code when it exits. */
  containerExit: Promise<number>;
}

/**
 * The container's stdin FIFO, for writing: non-blocking, so a full pipe is backpressure, not a
 * stuck thread. Opened as a plain descriptor, which the socket owns and closes: a FileHandle
 * would close it a second time when collected (EBADF, an uncaught error), or close the number
 * after the system reused it for another file.
 */
async function openStdin(path: string): Promise<Socket> {
  const fd = await promisify(openFd)(path, constants.O_RDWR | constants.O_NONBLOCK);
  const socket = new Socket({ fd, readable: false, writable: true });
  socket.on('error', () => undefined); // the container went away
  return socket;
}

/**
 * Attaches to a process container (CRI's Attach): its output from now on, as its shim writes
 * it to the log, and, for a container created with stdin, its stdin FIFO. `exited` settles
 * with the container's exit code, or 0 when `kill` detaches (the container runs on).
 */
export async function attachToShim(req: ShimAttachRequest): Promise<ContainerSession> {
  if (req.options.stdin && !req.hasStdin) {
    throw new KedgeError('Invalid', `cannot attach to the stdin of container ${req.name}: it was not created with stdin (set stdin: true in its spec)`);
  }
  const stdin = req.options.stdin ? await openStdin(req.paths.stdin) : undefined;
  const follow = await followShimLog({ path: req.paths.log, clock: req.clock, options: req.options });
  let detach: (code: number) => void = () => undefined;
  const detached = new Promise<number>((resolve) => (detach = resolve));
  const exited = Promise.race([req.containerExit.then(async (code) => (await follow.finish(), code)), detached]);
  void exited.finally(() => stdin?.destroy());
  return {
    ...(stdin ? { stdin } : {}),
    ...(follow.stdout ? { stdout: follow.stdout } : {}),
    ...(follow.stderr ? { stderr: follow.stderr } : {}),
    exited,
    kill: () => {
      follow.stop();
      detach(0);
    },
  };
}
