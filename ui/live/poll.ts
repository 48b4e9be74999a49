import type { Timers } from '../clock.js';
import { ApiError, CloudUnreachable } from './api.js';

export interface PollOptions<T> {
  fetch(signal: AbortSignal): Promise<T>;
  onValue(value: T): void;
  onProblem(problem: string, unreachable: boolean): void;
  /** At least a second: the page never polls faster. */
  everyMs: number;
  timers: Timers;
  signal: AbortSignal;
}

/** Fetches, waits, fetches again (never two at once) until `signal` aborts; a 401 ends it by throwing. */
export async function poll<T>(o: PollOptions<T>): Promise<void> {
  const everyMs = Math.max(1_000, o.everyMs);
  while (!o.signal.aborted) {
    try {
      o.onValue(await o.fetch(o.signal));
    } catch (err) {
      if (o.signal.aborted) return;
      if (err instanceof ApiError && err.status === 401) throw err;
      o.onProblem((err as Error).message, err instanceof CloudUnreachable);
    }
    await o.timers.sleep(everyMs, o.signal);
  }
}
