import { readdir, readFile } from 'node:fs/promises';
import { statFields } from '../../shared/proc-stat.js';

/** Linux reports CPU times in USER_HZ ticks, 100 a second on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

/** What a container's processes use, summed over its process group (its shim aside). */
export interface GroupUsage {
  /** CPU time used so far (user + system), in nanoseconds. */
  cpuNs: number;
  /** Resident memory, in bytes. */
  memoryBytes: number;
  /** The container's main process: the one its shim started. */
  mainPid?: number;
}

interface ProcEntry {
  pid: number;
  ppid: number;
  group: number;
  cpuTicks: number;
}

/** Every process of the machine, read once from /proc (empty where there is no /proc). */
async function processes(): Promise<ProcEntry[]> {
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name)).map(Number);
  const entries = await Promise.all(pids.map(async (pid): Promise<ProcEntry | undefined> => {
    const f = await statFields(pid);
    if (!f) return undefined;
    return { pid, ppid: Number(f[4 - 3]), group: Number(f[5 - 3]), cpuTicks: Number(f[14 - 3]) + Number(f[15 - 3]) };
  }));
  return entries.filter((e): e is ProcEntry => e !== undefined);
}

/** VmRSS of /proc/<pid>/status, in bytes; 0 when gone (or a zombie, which holds none). */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
}

/**
 * Reads /proc once and answers, for each process group asked about, what its members other
 * than its leader (a container's shim) use.
 */
export async function groupUsages(groups: readonly number[]): Promise<Map<number, GroupUsage>> {
  const out = new Map<number, GroupUsage>();
  if (groups.length === 0) return out;
  const all = await processes();
  for (const group of groups) {
    const members = all.filter((p) => p.group === group && p.pid !== group);
    const memory = await Promise.all(members.map((p) => residentBytes(p.pid)));
    const ticks = members.reduce((sum, p) => sum + p.cpuTicks, 0);
    const main = members.find((p) => p.ppid === group)?.pid;
    out.set(group, { cpuNs: (ticks * 1e9) / TICKS_PER_SECOND, memoryBytes: memory.reduce((a, b) => a + b, 0), ...(main !== undefined ? { mainPid: main } : {}) });
  }
  return out;
}
