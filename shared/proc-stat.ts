import { readFile, readlink } from 'node:fs/promises';

/**
 * Who a pid is right now, from Linux's /proc/<pid>/stat: its start time (field 22, clock
 * ticks since boot) tells a process apart from a later one that got the same recycled pid.
 * Undefined when no such process runs (a zombie has finished running, so it counts as gone).
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  const fields = await statFields(pid);
  if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[22 - 3];
}

/** The fields of /proc/<pid>/stat from the third (its state) on: field N is at N - 3. Undefined when no such process exists. */
export async function statFields(pid: number): Promise<string[] | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** This boot of the machine (Linux's boot_id): start times and pids start again at every boot. Undefined elsewhere. */
export async function machineBootId(): Promise<string | undefined> {
  return readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((text) => text.trim() || undefined, () => undefined);
}

/** The pid namespace this process runs in (as `pid:[4026531836]`): a pid means something only inside its own. Undefined elsewhere. */
export async function pidNamespace(): Promise<string | undefined> {
  return readlink('/proc/self/ns/pid').catch(() => undefined);
}

/** A process as recorded: its pid, and what tells it apart from a later process with the same pid. */
export interface ProcessIdentity {
  pid: number;
  /** Its start time (processStartTime), when it could be read. */
  startTime?: string;
  /** The boot of the machine it ran in (machineBootId), when it could be read. */
  bootId?: string;
}

/** The identity of a process that runs now, to be recorded. */
export async function identify(pid: number): Promise<ProcessIdentity> {
  const [startTime, bootId] = await Promise.all([processStartTime(pid), machineBootId()]);
  return { pid, ...(startTime !== undefined ? { startTime } : {}), ...(bootId !== undefined ? { bootId } : {}) };
}

/**
 * What became of a recorded process: it still runs; it is gone; its pid is another process
 * now; it ran before this machine last booted; or, recorded without a start time, unknown.
 */
export type ProcessFate = 'running' | 'gone' | 'reused' | 'rebooted' | 'unknown';

export async function fateOf(id: ProcessIdentity): Promise<ProcessFate> {
  const bootId = await machineBootId();
  if (id.bootId !== undefined && bootId !== undefined && id.bootId !== bootId) return 'rebooted';
  if (id.startTime === undefined) return 'unknown';
  const now = await processStartTime(id.pid);
  if (now === undefined) return 'gone';
  return now === id.startTime ? 'running' : 'reused';
}

/** True when the recorded process still runs: the very one, not a later one with its pid (nor one of another boot). */
export async function isSameProcess(id: ProcessIdentity): Promise<boolean> {
  return (await fateOf(id)) === 'running';
}
