import type { Clock } from '../../shared/clock.js';
import { formatDuration } from './describe.js';
import type { Verdict } from './judge.js';
import type { ExpectStep } from './types.js';

export interface ExpectDeps {
  clock: Clock;
  timeScale: number;
  /** Real milliseconds between two looks. */
  pollMs: number;
  signal?: AbortSignal;
}

export interface ExpectResult extends Verdict {
  /** Real time (clock ms) it first held, if it did. */
  heldAt?: number;
  /** Real time it was decided. */
  at: number;
}

/**
 * Looks until the expectation holds or `within` (cluster time) is over; then, with `for`,
 * keeps looking until that much more time has passed, failing the moment it stops holding.
 */
export async function awaitExpectation(step: ExpectStep, look: () => Promise<Verdict>, d: ExpectDeps): Promise<ExpectResult> {
  const { clock } = d;
  const deadline = clock.now() + step.withinMs / d.timeScale;
  let verdict = await look();
  while (!verdict.ok) {
    const left = deadline - clock.now();
    if (left <= 0) {
      const seen = step.withinMs > 0 ? `not within ${formatDuration(step.withinMs)}: ${verdict.seen}` : verdict.seen;
      return { ok: false, seen, at: clock.now() };
    }
    await clock.sleep(Math.min(d.pollMs, left), d.signal);
    verdict = await look();
  }
  const heldAt = clock.now();
  const until = heldAt + step.forMs / d.timeScale;
  for (let left = until - clock.now(); left > 0; left = until - clock.now()) {
    await clock.sleep(Math.min(d.pollMs, left), d.signal);
    const now = await look();
    if (!now.ok) return { ok: false, seen: `held, then stopped holding after ${formatDuration((clock.now() - heldAt) * d.timeScale)}: ${now.seen}`, heldAt, at: clock.now() };
    verdict = now;
  }
  return { ...verdict, heldAt, at: clock.now() };
}
