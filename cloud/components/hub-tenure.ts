import { distinctUntilChanged, Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { HeldRecord } from '../leaderelection/index.js';

/**
 * `serving`: this cloud leads the hub's Lease and its hub runs. `held`: the term ended (a
 * renewal late past the renew deadline) and the hub stopped, but the Lease may still be ours:
 * the broker keeps its nodes connected, idle. `off`: the hub stops and the nodes go.
 */
export type Tenure = 'serving' | 'held' | 'off';

/** The hub's candidate, as the tenure reads it. */
export interface TenureCandidate {
  readonly identity: string;
  readonly leading$: Observable<boolean>;
  leader(): string | undefined;
  held(): HeldRecord | undefined;
}

/**
 * The hub's tenure from its candidate. On losing the term it is `held` until one of:
 * - the candidate wins again by renewing the record it last wrote (same leaseTransitions, so
 *   nobody else held the Lease meanwhile): `serving` again, the nodes never dropped;
 * - another holder is seen, or `leaseMs` has passed since its last renewal landed (another
 *   cloud may take the Lease from then on): `off`;
 * - it wins after a transition: `off`, then `serving` (a fresh term).
 * Whether the Lease is still ours is looked at every `checkMs` while held.
 */
export function hubTenure(candidate: TenureCandidate, clock: Clock, leaseMs: number, checkMs: number): Observable<Tenure> {
  return new Observable<Tenure>((subscriber) => {
    let held: HeldRecord | undefined;
    let cancelCheck = (): void => {};
    let tenure: Tenure = 'off';
    const set = (next: Tenure): void => {
      tenure = next;
      subscriber.next(next);
    };
    const stopHolding = (): void => {
      cancelCheck();
      held = undefined;
    };
    const check = (): void => {
      const seen = candidate.leader();
      if ((seen !== undefined && seen !== candidate.identity) || clock.now() >= held!.at + leaseMs) {
        stopHolding();
        return set('off');
      }
      cancelCheck = clock.setTimer(checkMs, check);
    };
    set('off');
    const subscription = candidate.leading$.subscribe((leading) => {
      if (leading) {
        const renewedOwn = tenure === 'held' && candidate.held()?.leaseTransitions === held!.leaseTransitions;
        stopHolding();
        if (!renewedOwn) set('off');
        return set('serving');
      }
      if (tenure !== 'serving') return;
      held = candidate.held();
      if (!held) return set('off');
      set('held');
      check();
    });
    return () => {
      subscription.unsubscribe();
      cancelCheck();
    };
  }).pipe(distinctUntilChanged());
}
