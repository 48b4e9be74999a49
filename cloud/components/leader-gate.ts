import { BehaviorSubject } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Elect, LeaderElector, LockName } from '../leaderelection/index.js';
import type { ComponentHandle, Health } from './component.js';
import { whileLeading, type GatedHandle } from './while-leading.js';

export type { GatedHandle };

/**
 * One kube component's leader election (the scheduler's, the controller-manager's): `campaign`
 * starts a candidate with the component and runs its work only while that candidate leads,
 * stopping the work at once when the term ends (kube's component would exit; this one waits to
 * lead again). A controller of the controller-manager `follow`s its parent's gate. Closing the
 * handle stops the work first, then releases the Lease, so two never run at once.
 */
export class LeaderGate {
  private readonly leading = new BehaviorSubject(false);
  private elector: LeaderElector | undefined;
  private since: number;

  constructor(
    private readonly elect: Elect,
    private readonly lock: LockName,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.since = clock.now();
  }

  async campaign(work: () => Promise<ComponentHandle>): Promise<GatedHandle> {
    const elector = await this.elect(this.lock);
    this.elector = elector;
    const feed = elector.leading$.subscribe((on) => {
      this.since = this.clock.now();
      this.leading.next(on);
    });
    const running = await this.follow(work);
    return {
      failure: running.failure,
      close: async () => {
        await running.close();
        feed.unsubscribe();
        await elector.close();
        this.leading.next(false);
      },
    };
  }

  /** Runs `work` while this gate's candidate leads; the handle stops following. */
  follow(work: () => Promise<ComponentHandle>): Promise<GatedHandle> {
    return whileLeading(this.leading, work, this.logger);
  }

  /**
   * Healthy either way, as a standby kube-scheduler is: says whether it leads, and who does if
   * not; unhealthy when the work failed to start on winning.
   */
  health(handle?: GatedHandle): Health {
    const failure = handle?.failure();
    if (failure !== undefined) return { healthy: false, message: `failed to start: ${failure}`, since: this.since };
    if (this.leading.value) return { healthy: true, message: 'ok (leader)', since: this.since };
    const seen = this.elector?.leader();
    const other = seen !== undefined && seen !== this.elector?.identity ? seen : 'unknown';
    return { healthy: true, message: `standby (leader: ${other})`, since: this.since };
  }
}
