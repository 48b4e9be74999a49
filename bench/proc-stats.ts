import { readFile } from 'node:fs/promises';
import { realClock, type Cancel } from '../shared/clock.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system) and resident memory of a process, from /proc. */
export async function processUsage(pid: number): Promise<{ cpuSeconds: number; rssMiB: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { cpuSeconds, rssMiB: rssKiB / 1024 };
}

/** Samples a process every second: peak RSS, and CPU used between start() and stop(). */
export class UsageSampler {
  peakRssMiB = 0;
  private cancel: Cancel | undefined;
  private startCpu = 0;
  private startedAt = 0;

  constructor(private readonly pid: number) {}

  async start(): Promise<void> {
    const first = await processUsage(this.pid);
    this.startCpu = first.cpuSeconds;
    this.startedAt = performance.now();
    this.peakRssMiB = first.rssMiB;
    this.cancel = realClock.setRepeating(1000, () => void this.sample());
  }

  async stop(): Promise<{ peakRssMiB: number; cpuCores: number; cpuSeconds: number }> {
    this.cancel?.();
    const last = await this.sample();
    const cpuSeconds = last.cpuSeconds - this.startCpu;
    return { peakRssMiB: this.peakRssMiB, cpuSeconds, cpuCores: cpuSeconds / ((performance.now() - this.startedAt) / 1000) };
  }

  private async sample(): Promise<{ cpuSeconds: number; rssMiB: number }> {
    const usage = await processUsage(this.pid).catch(() => ({ cpuSeconds: 0, rssMiB: 0 }));
    this.peakRssMiB = Math.max(this.peakRssMiB, usage.rssMiB);
    return usage;
  }
}
