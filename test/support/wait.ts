import { wallDelay } from '../../shared/clock.js';

type Check<T> = () => T | undefined | false | Promise<T | undefined | false>;

/** Polls `check` on the wall clock (real sockets need real time) until it returns a truthy value. */
export async function waitFor<T>(check: Check<T>, what = 'condition', timeoutMs = 5000, everyMs = 5): Promise<T> {
  for (let waited = 0; ; waited += everyMs) {
    const value = await check();
    if (value) return value;
    if (waited >= timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await wallDelay(everyMs);
  }
}
