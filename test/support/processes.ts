import { readdir, readFile } from 'node:fs/promises';
import { waitFor } from './wait.js';

export interface LiveProcess {
  pid: number;
  /** Its command line, as exec'd. */
  args: string[];
}

/** Every process of this machine that still runs (zombies left out), from Linux's /proc. */
export async function liveProcesses(): Promise<LiveProcess[]> {
  const out: LiveProcess[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) continue;
      const args = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0').slice(0, -1);
      out.push({ pid: Number(name), args });
    } catch {
      // gone while we looked
    }
  }
  return out;
}

/** The process runs (a zombie does not count: it has ended, and waits only for its parent). */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/**
 * Kills (-9) every process whose command line names `path` (a test's data dir: a pod's shim left
 * running on purpose, say) and waits until none runs, so removing the dir races no writer.
 */
export async function killProcessesNaming(path: string, timeoutMs = 10_000): Promise<void> {
  const naming = async (): Promise<number[]> => (await liveProcesses()).filter((p) => p.args.some((a) => a.includes(path))).map((p) => p.pid);
  for (const pid of await naming()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await waitFor(async () => (await naming()).length === 0, `no process naming ${path}`, timeoutMs, 50);
}
