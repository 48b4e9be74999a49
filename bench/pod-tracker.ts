import type { Subscription } from 'rxjs';
import type { ApiClient } from '../cloud/client/client.js';
import type { Pod } from '../shared/types.js';

/** When each pod was created (by us), bound and first seen Running through a watch. */
export interface PodTimes {
  createdAt?: number;
  boundAt?: number;
  runningAt?: number;
  node?: string;
}

const started = (p: Pod): boolean => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c) => c.started !== false && c.state?.running);

/**
 * Follows every pod in a namespace through one watch and timestamps (wall clock, ms) the
 * first binding and the first Running observation — the Kubernetes pod startup SLO's end.
 */
export class PodTracker {
  readonly times = new Map<string, PodTimes>();
  private sub: Subscription | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly namespace = 'default',
  ) {}

  async start(): Promise<void> {
    const list = await this.api.list<Pod>({ resource: 'pods', namespace: this.namespace });
    for (const pod of list.items) this.see(pod);
    this.sub = this.api.watch<Pod>({ resource: 'pods', namespace: this.namespace }, { resourceVersion: list.metadata.resourceVersion }).subscribe({
      next: (e) => e.type !== 'DELETED' && e.type !== 'BOOKMARK' && this.see(e.object),
      error: (err: unknown) => console.error('pod watch ended:', err),
    });
  }

  created(name: string, at: number): void {
    this.entry(name).createdAt = at;
  }

  count(predicate: (t: PodTimes) => boolean): number {
    let n = 0;
    for (const t of this.times.values()) if (predicate(t)) n++;
    return n;
  }

  stop(): void {
    this.sub?.unsubscribe();
  }

  private see(pod: Pod): void {
    const t = this.entry(pod.metadata.name!);
    const now = performance.now();
    if (pod.spec.nodeName && t.boundAt === undefined) {
      t.boundAt = now;
      t.node = pod.spec.nodeName;
    }
    if (started(pod) && t.runningAt === undefined) t.runningAt = now;
  }

  private entry(name: string): PodTimes {
    let t = this.times.get(name);
    if (!t) this.times.set(name, (t = {}));
    return t;
  }
}
