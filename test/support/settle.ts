import { wallDelay, type FakeClock } from '../../shared/clock.js';

export type Check<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * What Node 20 lists in `process.getActiveResourcesInfo()` while a filesystem request is in
 * flight: a callback or promise request, or the close of a `FileHandle` (fs/promises).
 */
const FS_REQUESTS = new Set(['FSReqCallback', 'FSReqPromise', 'CloseReq']);
/** Quiet turns in a row before the process counts as quiet: work a finished request starts by setImmediate shows up. */
const QUIET_TURNS = 3;

const fsBusy = (): boolean => process.getActiveResourcesInfo().some((r) => FS_REQUESTS.has(r));
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Resolves once the process is quiet: the microtask queue drained and no filesystem request
 * in flight, for a few event-loop turns in a row. No deadline: a slow disk only makes it
 * slower. Sockets, child processes and real timers are not waited for.
 */
export async function settle(): Promise<void> {
  for (let quiet = 0; quiet < QUIET_TURNS; ) {
    await nextTurn();
    if (!fsBusy()) {
      quiet++;
      continue;
    }
    quiet = 0;
    await wallDelay(1); // lets the thread pool finish without spinning the CPU
  }
}

export interface RunUntilOptions {
  /** Fake time moved between checks. */
  stepMs?: number;
  /** Fake time after which it gives up. */
  budgetMs?: number;
}

/**
 * Settles, checks, and moves `clock` on by `stepMs` until `check` returns a truthy value.
 * Gives up after `budgetMs` of fake time, never on the wall clock: a busy machine only
 * makes it slower.
 */
export async function runUntil<T>(clock: FakeClock, check: Check<T>, what: string, options: RunUntilOptions = {}): Promise<T> {
  const { stepMs = 50, budgetMs = 60_000 } = options;
  const start = clock.now();
  for (;;) {
    await settle();
    const value = await check();
    if (value) return value;
    const spent = clock.now() - start;
    if (spent >= budgetMs) throw new Error(`timed out after ${budgetMs} ms of fake time waiting for ${what}`);
    await clock.advance(Math.min(stepMs, budgetMs - spent));
  }
}

/** Lets `ms` of fake time pass in `stepMs` steps, settling before and after each. */
export async function pass(clock: FakeClock, ms: number, stepMs = 50): Promise<void> {
  await settle();
  for (let left = ms; left > 0; left -= stepMs) {
    await clock.advance(Math.min(stepMs, left));
    await settle();
  }
}

/** Moves the clock on in steps of 100 ms, waiting after each for `sync` (edged's, whose syncs do real file I/O). */
export async function passSyncing(clock: FakeClock, sync: () => Promise<void>, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    await clock.advance(100);
    await sync();
  }
}
