import { readFile } from 'node:fs/promises';

/**
 * Who a pid is right now, from Linux's /proc/<pid>/stat: its start time (field 22, clock
 * ticks since boot) tells a process apart from a later one that got the same recycled pid.
 * Undefined when no such process runs (a zombie has finished running, so it counts as gone).
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[22 - 3];
}

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
