import type { Clock } from '../../shared/clock.js';

/**
 * Polls `check` on `clock` until it gives a truthy value; a check that throws (a cloud being
 * killed, an edge restarting) counts as not yet. Throws naming `what` after `timeoutMs`.
 */
export async function pollUntil<T>(clock: Clock, check: () => Promise<T | false | undefined>, what: string, timeoutMs: number, everyMs = 50): Promise<T> {
  const deadline = clock.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (clock.now() > deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${(lastError as Error).message})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await clock.sleep(everyMs);
  }
}
