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

/** This boot of the machine (Linux's boot_id): start times and pids start again at every boot. Undefined elsewhere. */
export async function machineBootId(): Promise<string | undefined> {
  return readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((text) => text.trim() || undefined, () => undefined);
}
