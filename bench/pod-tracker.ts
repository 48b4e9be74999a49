import type { Subscription } from 'rxjs';
import { podStarted } from '../cloud/tracing/follow-pod-startups.js';
import { preciseWallTime } from '../shared/trace/pod-startup-trace.js';
import { realClock } from '../shared/clock.js';
import type { ApiClient } from '../cloud/client/client.js';
import type { Pod } from '../shared/types.js';

/** When each pod was created (by us), bound and first seen Running through a watch. */
export interface PodTimes {
  createdAt?: number;
  boundAt?: number;
  runningAt?: number;
  node?: string;
}


/**
 * Follows every pod in a namespace through one watch and timestamps (wall clock, ms, on the
 * cloud's trace's scale: preciseWallTime) the
 * first binding and the first Running observation — the Kubernetes pod startup SLO's end.
 */
export class PodTracker {
  readonly times = new Map<string, PodTimes>();
  private sub: Subscription | undefined;
  private stopped = false;

  constructor(
    private readonly api: ApiClient,
    private readonly namespace = 'default',
  ) {}

  /** Lists, then watches from the list; lists and watches again whenever the watch ends (as an informer does). */
  async start(): Promise<void> {
    const list = await this.api.list<Pod>({ resource: 'pods', namespace: this.namespace });
    for (const pod of list.items) this.see(pod);
    if (this.stopped) return;
    const again = (why: string): void => {
      // Times seen by the next list are upper bounds: the events in between were missed.
      console.error(`pod watch ended (${why}); listing again`);
      if (!this.stopped) realClock.setTimer(200, () => void this.start().catch((err: unknown) => again(String(err))));
    };
    this.sub = this.api.watch<Pod>({ resource: 'pods', namespace: this.namespace }, { resourceVersion: list.metadata.resourceVersion }).subscribe({
      next: (e) => e.type !== 'DELETED' && e.type !== 'BOOKMARK' && this.see(e.object),
      error: (err: unknown) => again(String(err)),
      complete: () => again('the apiserver closed it'),
    });
  }

  /** The create call for `name` is being sent now. */
  created(name: string): void {
    this.entry(name).createdAt = preciseWallTime();
  }

  count(predicate: (t: PodTimes) => boolean): number {
    let n = 0;
    for (const t of this.times.values()) if (predicate(t)) n++;
    return n;
  }

  stop(): void {
    this.stopped = true;
    this.sub?.unsubscribe();
  }

  private see(pod: Pod): void {
    const t = this.entry(pod.metadata.name!);
    const now = preciseWallTime();
    if (pod.spec.nodeName && t.boundAt === undefined) {
      t.boundAt = now;
      t.node = pod.spec.nodeName;
    }
    if (podStarted(pod) && t.runningAt === undefined) t.runningAt = now;
  }

  private entry(name: string): PodTimes {
    let t = this.times.get(name);
    if (!t) this.times.set(name, (t = {}));
    return t;
  }
}
