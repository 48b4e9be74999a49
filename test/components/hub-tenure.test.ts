import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { hubTenure, type Tenure } from '../../cloud/components/hub-tenure.js';
import type { HeldRecord } from '../../cloud/leaderelection/index.js';
import { FakeClock } from '../../shared/clock.js';

const LEASE = 15_000;
const RETRY = 2_000;

/** A hub candidate the test drives: whether it leads, the holder it saw, the record it last wrote. */
function candidate(clock: FakeClock) {
  const leading = new BehaviorSubject(false);
  const state = { holder: undefined as string | undefined, held: undefined as HeldRecord | undefined };
  const win = (leaseTransitions: number): void => {
    state.holder = 'me';
    state.held = { at: clock.now(), leaseTransitions };
    leading.next(true);
  };
  const c = { identity: 'me', leading$: leading, leader: () => state.holder, held: () => state.held };
  const seen: Tenure[] = [];
  const subscription = hubTenure(c, clock, LEASE, RETRY).subscribe((t) => seen.push(t));
  return { leading, state, win, seen, close: () => subscription.unsubscribe() };
}

describe('hubTenure: the hub through a late renewal', () => {
  it('a term lost and won back by renewing its own record within the lease resumes: the nodes are only held', async () => {
    const clock = new FakeClock();
    const c = candidate(clock);
    c.win(0);
    await clock.advance(12_000);
    c.leading.next(false);
    await clock.advance(2_000);
    c.win(0);
    expect(c.seen).toEqual(['off', 'serving', 'held', 'serving']);
    c.close();
  });

  it('ends once the lease may have passed to another cloud, counted from the last renewal', async () => {
    const clock = new FakeClock();
    const c = candidate(clock);
    c.win(0);
    await clock.advance(12_000);
    c.leading.next(false);
    await clock.advance(LEASE - 12_000 - 1);
    expect(c.seen.at(-1)).toBe('held');
    await clock.advance(RETRY);
    expect(c.seen).toEqual(['off', 'serving', 'held', 'off']);
    c.close();
  });

  it('ends at once when another holder is seen at a check', async () => {
    const clock = new FakeClock();
    const c = candidate(clock);
    c.win(3);
    c.leading.next(false);
    c.state.holder = 'other';
    await clock.advance(RETRY);
    expect(c.seen).toEqual(['off', 'serving', 'held', 'off']);
    c.close();
  });

  it('a win after a transition (someone held it in between) is a new term: the old one ends first', async () => {
    const clock = new FakeClock();
    const c = candidate(clock);
    c.win(3);
    c.leading.next(false);
    c.win(5);
    expect(c.seen).toEqual(['off', 'serving', 'held', 'off', 'serving']);
    c.close();
  });
});
