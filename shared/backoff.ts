/**
 * Capped exponential backoff with jitter: attempt 0 waits about `minMs`, each attempt after
 * that doubles it up to `maxMs`, and the wait is drawn from the upper half of that window so
 * a fleet of edges that lost the broker together does not come back in lockstep.
 */
export function reconnectDelay(attempt: number, minMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
