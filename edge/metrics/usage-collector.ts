import type { Clock } from '../../shared/clock.js';
import type { NodeUsage } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';
import { AGENT_RUNTIME_NAME } from '../runtime/agent-runtime.js';
import type { ContainerInfo, Runtime } from '../runtime/runtime.js';
import { addUsage, simUsageOf, usageQuantities, ZERO_USAGE, type Usage } from './sim-usage.js';

/** What a measurement reads of something real: CPU time used so far, and memory in use now. */
export interface Measured {
  cpuNs: number;
  memoryBytes: number;
}

export interface UsageCollectorDeps {
  runtime: Pick<Runtime, 'listContainers' | 'processOf'>;
  /** The pods this node holds (its cache): their uids, names and annotations. */
  pods: () => Pod[];
  clock: Clock;
  /** Reads process groups from /proc; absent: process pods count as simulated too (hollow fleets). */
  readGroups?: (groups: number[]) => Promise<Map<number, Measured>>;
  /** The edge process's own use, part of the node's total; absent: not counted. */
  self?: () => Measured;
  /** The window of a report with no earlier one. */
  resolutionMs: number;
}

interface Sample {
  cpuNs: number;
  at: number;
}

const SELF = 'self';

/**
 * The node's usage report: each running container of the node's pods (measured from /proc for
 * process pods, as its pod's kedge.io/sim-usage annotation says for simulated ones, none for the
 * edge's built-in agents, which run inside the edge process), and the node's total (the pods'
 * sum plus the edge process's own use). CPU is a rate: the CPU time used between two samples.
 */
export class UsageCollector {
  private samples = new Map<string, Sample>();
  private lastAt: number | undefined;

  constructor(private readonly deps: UsageCollectorDeps) {}

  async collect(): Promise<NodeUsage> {
    const now = this.deps.clock.now();
    const pods = new Map(this.deps.pods().map((p) => [p.metadata.uid ?? '', p]));
    const running = (await this.deps.runtime.listContainers()).filter((c) => c.state === 'running' && pods.has(c.podUid));
    const measured = await this.measure(running);
    const next = new Map<string, Sample>();
    const rate = (key: string, cpuNs: number, since?: number): number => this.rate(key, cpuNs, now, next, since);

    let total = ZERO_USAGE;
    const reported: NodeUsage['pods'] = [];
    for (const [uid, pod] of pods) {
      const containers = running.filter((c) => c.podUid === uid);
      if (containers.length === 0) continue;
      const usages = containers.map((c) => {
        const m = measured.get(c.id);
        const usage: Usage = m ? { nanocores: rate(c.id, m.cpuNs, c.startedAt), memoryBytes: m.memoryBytes } : this.unmeasured(c, pod);
        total = addUsage(total, usage);
        return { name: c.name, ...usageQuantities(usage) };
      });
      reported.push({ namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name ?? '', uid, containers: usages });
    }
    const self = this.deps.self?.();
    if (self) total = addUsage(total, { nanocores: rate(SELF, self.cpuNs), memoryBytes: self.memoryBytes });

    const windowMs = this.lastAt === undefined || now <= this.lastAt ? this.deps.resolutionMs : now - this.lastAt;
    this.samples = next;
    this.lastAt = now;
    return { time: now, windowMs, node: usageQuantities(total), pods: reported };
  }

  /** A container /proc could not tell about: an agent uses none of its own, a process that just ended none, a simulated one what its pod says. */
  private unmeasured(c: ContainerInfo, pod: Pod): Usage {
    if (c.runtime === AGENT_RUNTIME_NAME) return ZERO_USAGE;
    if (c.runtime === 'process' && this.deps.readGroups) return ZERO_USAGE;
    return simUsageOf(pod.metadata.annotations);
  }

  /** The process containers' use, by container id, from one read of /proc. */
  private async measure(running: ContainerInfo[]): Promise<Map<string, Measured>> {
    const out = new Map<string, Measured>();
    const { readGroups } = this.deps;
    if (!readGroups) return out;
    const groups = new Map<string, number>();
    for (const c of running) {
      if (c.runtime === 'sim' || c.runtime === AGENT_RUNTIME_NAME) continue;
      const group = (await this.deps.runtime.processOf?.(c.id))?.group;
      if (group !== undefined) groups.set(c.id, group);
    }
    if (groups.size === 0) return out;
    const read = await readGroups([...new Set(groups.values())]);
    for (const [id, group] of groups) {
      const m = read.get(group);
      if (m) out.set(id, m);
    }
    return out;
  }

  /** Nanocores since the last sample of `key` (or since `since`, when it started, with none). */
  private rate(key: string, cpuNs: number, now: number, next: Map<string, Sample>, since?: number): number {
    const previous = this.samples.get(key) ?? (since !== undefined ? { cpuNs: 0, at: since } : undefined);
    next.set(key, { cpuNs, at: now });
    if (!previous || now <= previous.at) return 0;
    return Math.max(0, ((cpuNs - previous.cpuNs) * 1000) / (now - previous.at));
  }
}
