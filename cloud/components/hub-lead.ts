import type { Observable, Subscription } from 'rxjs';
import { standbyMessage, type RunningHub } from '../hub/running-hub.js';
import type { Health } from './component.js';

/** The hub's Lease as this cloud sees it (leader election on). */
export interface HubCandidate {
  /** This cloud's identity in the Lease. */
  readonly identity: string;
  readonly leading$: Observable<boolean>;
  /** The holder last seen. */
  leader(): string | undefined;
}

/**
 * What the hub component and the API say about the hub's Lease: while this cloud leads, its hub
 * runs (or starts); while another does, this one stands by, healthy, naming the leader, as a
 * standby kube-scheduler does.
 */
export class HubLead {
  private leading = false;
  private readonly feed: Subscription;

  constructor(
    private readonly candidate: HubCandidate,
    private readonly hub: RunningHub,
    /** Why the hub did not start on the last win. */
    readonly failure: () => string | undefined,
  ) {
    this.feed = candidate.leading$.subscribe((on) => (this.leading = on));
  }

  /** Whether this cloud's hub runs or is starting (it leads): it serves the edges' requests itself. */
  servesHere(): boolean {
    return this.leading || this.hub.running;
  }

  /** The other cloud that leads the hub, if one is known. */
  other(): string | undefined {
    const seen = this.candidate.leader();
    return seen !== this.candidate.identity ? seen : undefined;
  }

  /** Why this cloud's hub serves no edge now. */
  whyNot(): string {
    return this.leading ? 'the cloud hub is starting' : standbyMessage(this.other());
  }

  /** The hub's health while it does not run; undefined while it does. */
  notRunning(): Health | undefined {
    if (this.hub.running) return undefined;
    const since = this.hub.since;
    const failure = this.failure();
    if (failure !== undefined) return { healthy: false, message: `failed to start: ${failure}`, since };
    if (this.leading) return { healthy: true, message: 'starting (leader)', since };
    return { healthy: true, message: `standby (leader: ${this.other() ?? 'unknown'})`, since };
  }

  close(): void {
    this.feed.unsubscribe();
  }
}
