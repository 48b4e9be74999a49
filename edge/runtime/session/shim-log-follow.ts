import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Clock } from '../../../shared/clock.js';
import type { SessionOptions } from '../runtime.js';

/** How often attach looks for new lines in a container's log. */
export const ATTACH_POLL_MS = 100;
const CHUNK_BYTES = 64 * 1024;

export interface LogFollowRequest {
  /** The shim's log file ("<ms> <stream> <text>" lines). */
  path: string;
  clock: Clock;
  options: SessionOptions;
}

/** What a container writes from now on, line by line, as its own stdout and stderr (with a tty, both on stdout). */
export interface LogFollow {
  stdout?: Readable;
  stderr?: Readable;
  /** Reads what is left, then ends the streams. */
  finish(): Promise<void>;
  /** Stops at once. */
  stop(): void;
}

const sizeOf = (path: string): Promise<number> => stat(path).then((s) => s.size, () => 0);

/**
 * Follows a shim's log from its current end, as attach sees a container's output: polled on
 * the clock, read only while the readers want more (a paused reader stops the reading, the file
 * holds the rest). After a rotation it goes on at the start of the new file.
 */
export async function followShimLog(req: LogFollowRequest): Promise<LogFollow> {
  let offset = await sizeOf(req.path);
  let reading = false;
  let ended = false;
  const { stdout: wantOut, stderr: wantErr, tty } = req.options;
  const stdout = wantOut || tty ? new Readable({ read: () => undefined }) : undefined;
  const stderr = wantErr && !tty ? new Readable({ read: () => undefined }) : undefined;
  const target = (stream: string): Readable | undefined => (stream === 'stderr' && !tty ? stderr : stdout);
  const wanted = (): boolean => [stdout, stderr].every((s) => !s || s.readableLength < s.readableHighWaterMark);

  /** Reads one chunk of whole lines; false when there was nothing new. */
  const readChunk = async (): Promise<boolean> => {
    const size = await sizeOf(req.path);
    if (size < offset) offset = 0; // rotated
    if (size === offset) return false;
    const handle = await open(req.path, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(Math.min(CHUNK_BYTES, size - offset)), 0, Math.min(CHUNK_BYTES, size - offset), offset);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      const whole = text.lastIndexOf('\n') + 1;
      if (whole === 0) return false; // a line still being written
      offset += Buffer.byteLength(text.slice(0, whole));
      for (const line of text.slice(0, whole - 1).split('\n')) {
        const match = /^\d+ (stdout|stderr) (.*)$/.exec(line);
        if (match && !ended) target(match[1]!)?.push(`${match[2]!}\n`);
      }
      return true;
    } finally {
      await handle.close();
    }
  };
  const tick = (): void => {
    if (reading || !wanted()) return;
    reading = true;
    void readChunk().catch(() => false).finally(() => (reading = false));
  };
  const cancel = req.clock.setRepeating(ATTACH_POLL_MS, tick);
  const end = (): void => {
    if (ended) return;
    ended = true;
    cancel();
    stdout?.push(null);
    stderr?.push(null);
  };
  return {
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    finish: async () => {
      cancel();
      while (reading) await new Promise((resolve) => setImmediate(resolve));
      while (await readChunk().catch(() => false));
      end();
    },
    stop: end,
  };
}
