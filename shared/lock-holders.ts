import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { machineBootId, processStartTime } from './proc-stat.js';

/** One process holding a data dir: a file in its lock directory. */
export interface Holder {
  pid: number;
  /** From /proc/<pid>/stat: tells it apart from a later process with the same pid. */
  startTime?: string;
  bootId?: string;
  host: string;
  /** What it is, as `kedge cloud`: named to whoever else tries. */
  command: string;
  /** The holder it works for (`kedge demo`'s cloud works for the demo). */
  for?: number;
}

export interface Entry {
  file: string;
  /** Undefined: a record torn by a power cut (records are whole once they are in the lock). */
  holder?: Holder;
}

/** What an entry says: its process runs, ran on another machine (unknowable from here), or is gone and why. */
export type Verdict = { entry: Entry; state: 'running' | 'elsewhere' } | { entry: Entry; state: 'gone'; why: string };

export async function thisProcess(command: string, forPid?: number): Promise<Holder> {
  const [startTime, bootId] = await Promise.all([processStartTime(process.pid), machineBootId()]);
  return { pid: process.pid, ...(startTime ? { startTime } : {}), ...(bootId ? { bootId } : {}), host: hostname(), command, ...(forPid ? { for: forPid } : {}) };
}

/** The entries of a lock directory; none when it is gone. */
export async function entriesOf(lockDir: string): Promise<Entry[]> {
  const files = await readdir(lockDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return Promise.all(files.map(async (file) => ({ file, holder: await readFile(join(lockDir, file), 'utf8').then(parseHolder, () => undefined) })));
}

function parseHolder(text: string): Holder | undefined {
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    return typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.command === 'string' ? (h as Holder) : undefined;
  } catch {
    return undefined;
  }
}

export async function judge(entry: Entry): Promise<Verdict> {
  const h = entry.holder;
  const gone = (why: string): Verdict => ({ entry, state: 'gone', why });
  if (!h) return gone('left a torn record');
  if (h.host !== hostname()) return { entry, state: 'elsewhere' };
  const bootId = await machineBootId();
  if (h.bootId && bootId && h.bootId !== bootId) return gone('ran before this machine last booted');
  if (h.startTime === undefined) return isRunning(h.pid) ? { entry, state: 'running' } : gone('is gone');
  const now = await processStartTime(h.pid);
  if (now === undefined) return gone('is gone');
  return now === h.startTime ? { entry, state: 'running' } : gone('is gone (its pid is another process now)');
}

/** Without /proc: whether a process with this pid exists at all. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function describeHolder(h: Holder | undefined): string {
  if (!h) return 'a process';
  return `pid ${h.pid} (${h.command}${h.for ? `, for pid ${h.for}` : ''})`;
}
