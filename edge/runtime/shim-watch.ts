import type { ChildProcess } from 'node:child_process';
import type { Clock } from '../../shared/clock.js';
import { isSameProcess } from './proc-stat.js';
import { shimRan, stopGroup, unstart } from './process-reconcile.js';
import { containerPaths, exitFromEvent, readExitFile, UNKNOWN_EXIT, type ExitInfo } from './process-spawn.js';
import { pollUntil, shimOf, type ProcessRecord } from './process-state.js';

/** How often a stop looks whether an adopted process (not our child: no exit event) is gone. */
const ADOPTED_POLL_MS = 100;

export interface ShimWatchDeps {
  dataDir: string;
  clock: Clock;
  /** Writes the records down (the process runtime's state file). */
  save: () => Promise<void>;
}

/**
 * Whether each container's shim still runs, and the record of how it ended. A shim this edge
 * process started is its child: its exit event says when and how. One adopted from an earlier
 * edge process is looked at (the same pid, start time and boot) whenever it is asked about.
 */
export class ShimWatch {
  /** Shims this instance started: their exit event tells when and how they ended. */
  private readonly children = new Map<string, { child: ChildProcess; exited: Promise<void> }>();

  constructor(private readonly deps: ShimWatchDeps) {}

  /** Follows a shim this process just started for `record`. */
  follow(record: ProcessRecord, child: ChildProcess): void {
    const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => void this.ended(record, exitFromEvent(code, signal)).finally(resolve)));
    this.children.set(record.id, { child, exited });
  }

  /** Running now? Notices an adopted process that has ended, and records its end. */
  async isRunning(record: ProcessRecord): Promise<boolean> {
    const shim = shimOf(record);
    if (!shim || record.finishedAt !== undefined) return false;
    if (this.children.has(record.id)) return true;
    if (await isSameProcess(shim)) return true;
    await this.ended(record, UNKNOWN_EXIT);
    return false;
  }

  /** Resolves once the container's shim has ended (and its end is recorded). */
  async exitOf(record: ProcessRecord): Promise<void> {
    const own = this.children.get(record.id);
    if (own) return own.exited;
    await pollUntil(this.deps.clock, ADOPTED_POLL_MS, async () => !(await this.isRunning(record)));
  }

  /** Records how the container ended. */
  async finish(record: ProcessRecord, exit: ExitInfo): Promise<void> {
    record.finishedAt = this.deps.clock.now();
    record.exitCode = exit.exitCode;
    record.reason = exit.reason;
    await this.deps.save();
  }

  /** Stops following one container's shim: it is being removed. */
  forget(containerId: string): void {
    this.children.get(containerId)?.child.removeAllListeners('exit');
    this.children.delete(containerId);
  }

  /** Stops following every shim, as a dying edge process would: a later instance takes over. */
  close(): void {
    for (const id of [...this.children.keys()]) this.forget(id);
  }

  /**
   * Records the end of a shim: how its container ended (the exit file, when there is one, knows
   * best), or, if it never ran it, `created` again. What is left in its process group goes (the
   * container, if the shim died before it; whatever the container left running).
   */
  private async ended(record: ProcessRecord, fallback: ExitInfo): Promise<void> {
    const { dataDir } = this.deps;
    const [recorded, ran] = await Promise.all([readExitFile(containerPaths(dataDir, record.id).exit), shimRan(dataDir, record.id)]);
    // Our child stays "running" until here, so a liveness check cannot race this with Unknown.
    this.children.delete(record.id);
    const shim = shimOf(record);
    if (record.finishedAt !== undefined || !shim) return;
    await stopGroup(shim);
    if (ran) return this.finish(record, recorded ?? fallback);
    unstart(record);
    await this.deps.save();
  }
}
