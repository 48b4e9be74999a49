import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { askProbe } from './lock-probe.js';
import { fateOf, identify, machineBootId, pidNamespace, type ProcessIdentity } from './proc-stat.js';

/** One process holding a data dir: a file in its lock directory (pid, start time and boot id tell it apart from a later process). */
export interface Holder extends ProcessIdentity {
  host: string;
  /** Where its pid means something: another pid namespace (another container) cannot be judged by pid from here. */
  pidNamespace?: string;
  /** The Unix socket in the data dir it listens on while it holds it (lock-probe.ts): says whether it runs, whatever pid namespace it is in. */
  probe?: string;
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
  const [identity, namespace] = await Promise.all([identify(process.pid), pidNamespace()]);
  return { ...identity, host: hostname(), ...(namespace ? { pidNamespace: namespace } : {}), command, ...(forPid ? { for: forPid } : {}) };
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

/**
 * This machine's holders are judged here: those under its host name, and those of its current
 * boot under any other (the machine was renamed: DHCP, a container made again). Whatever its
 * pid says, a holder whose socket answers runs; one in another pid namespace (another
 * container), whose pid means nothing here, is gone only when its socket is refused.
 */
export async function judge(entry: Entry, dataDir: string): Promise<Verdict> {
  const h = entry.holder;
  const gone = (why: string): Verdict => ({ entry, state: 'gone', why });
  if (!h) return gone('left a torn record');
  const [bootId, namespace] = await Promise.all([machineBootId(), pidNamespace()]);
  if (h.host !== hostname() && (h.bootId === undefined || h.bootId !== bootId)) return { entry, state: 'elsewhere' };
  const fate = await fateOf(h);
  if (fate === 'rebooted') return gone('ran before this machine last booted');
  if (fate === 'running' || (fate === 'unknown' && pidExists(h.pid))) return { entry, state: 'running' };
  const probe = h.probe === undefined ? undefined : await askProbe(join(dataDir, basename(h.probe)));
  if (probe === 'answers') return { entry, state: 'running' };
  if ((h.pidNamespace ?? namespace) === namespace) return gone(fate === 'reused' ? 'is gone (its pid is another process now)' : 'is gone');
  return probe === 'refused' ? gone('is gone (nothing answers on its socket)') : { entry, state: 'elsewhere' };
}

/** Without /proc (a record without a start time): whether a process with this pid exists at all. */
function pidExists(pid: number): boolean {
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
