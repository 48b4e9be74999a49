import { FakeClock, wallDelay } from '../../shared/clock.js';

/**
 * Waits until `check` returns a truthy value, moving a fake clock forward in `stepMs` steps
 * and giving real sockets a moment between steps. Fails after `wallTimeoutMs` of wall time.
 */
export async function eventually<T>(
  clock: FakeClock,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  options: { stepMs?: number; wallTimeoutMs?: number } = {},
): Promise<T> {
  const { stepMs = 50, wallTimeoutMs = 10_000 } = options;
  const deadline = performance.now() + wallTimeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await clock.advance(stepMs);
    await wallDelay(2);
  }
}
