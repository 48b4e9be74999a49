import { wallDelay } from '../../shared/clock.js';
import type { Check } from './settle.js';

/**
 * Polls `check` on the wall clock (real sockets need real time) until it returns a truthy value.
 * The default timeout is generous: a busy two-core machine only makes it slower.
 */
export async function waitFor<T>(check: Check<T>, what = 'condition', timeoutMs = 15_000, everyMs = 5): Promise<T> {
  for (let waited = 0; ; waited += everyMs) {
    const value = await check();
    if (value) return value;
    if (waited >= timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await wallDelay(everyMs);
  }
}
