import { PassThrough } from 'node:stream';
import type { Clock } from '../../../shared/clock.js';
import type { ContainerInfo, ContainerSession, LogLine, SessionOptions } from '../runtime.js';

/** How often an attach to a sim container looks for new log lines. */
export const SIM_ATTACH_POLL_MS = 1_000;

export interface SimAttachRequest {
  clock: Clock;
  options: SessionOptions;
  /** The container and its log at `now`; undefined once it is removed. */
  look: (now: number) => { info: ContainerInfo; lines: LogLine[] } | undefined;
}

/**
 * Attaches to a sim container: its simulated log lines from now on, as they come (on the
 * clock), on stdout; `exited` settles with its exit code when it exits (0 when `kill` detaches).
 */
export function attachSimLog(req: SimAttachRequest): ContainerSession {
  const stdout = req.options.stdout || req.options.tty ? new PassThrough() : undefined;
  let since = req.clock.now();
  let finish: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (finish = resolve));
  const cancel = req.clock.setRepeating(SIM_ATTACH_POLL_MS, () => {
    const now = req.clock.now();
    const seen = req.look(now);
    for (const line of seen?.lines.filter((l) => l.time > since && l.time <= now) ?? []) stdout?.write(`${line.text}\n`);
    since = now;
    if (!seen || seen.info.state === 'exited') end(seen?.info.exitCode ?? 0);
  });
  const end = (code: number): void => {
    cancel();
    stdout?.end();
    finish(code);
  };
  return { ...(stdout ? { stdout } : {}), exited, kill: () => end(0) };
}
