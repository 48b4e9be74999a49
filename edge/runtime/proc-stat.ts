import { processStartTime } from '../../shared/proc-stat.js';

export { processStartTime };

/** True when `pid` still runs and is the very process that started at `startTime`. */
export async function isSameProcess(pid: number, startTime: string | undefined): Promise<boolean> {
  return startTime !== undefined && (await processStartTime(pid)) === startTime;
}

/** Signals a whole process group (a container and whatever it spawned); a gone group is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
