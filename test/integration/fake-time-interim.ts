import type { FakeClock } from '../../shared/clock.js';

/*
 * Interim, for the tests that run a cluster on a FakeClock alone: to be replaced by
 * test/support/settle.ts (runUntil, pass) once it lands, with the same calls.
 */

type Check<T> = () => T | undefined | false | Promise<T | undefined | false>;

/** Whether a file-system request is in flight (the edges write their cache durably before they ack). */
function fileSystemBusy(): boolean {
  return process.getActiveResourcesInfo().some((resource) => resource.startsWith('FSReq'));
}

/**
 * Lets what is ready run without moving the clock: promise callbacks, I/O callbacks, and every
 * file-system request in flight. Turns of the event loop, never a wall-clock wait.
 */
async function quiet(): Promise<void> {
  do await new Promise((resolve) => setImmediate(resolve));
  while (fileSystemBusy());
}

/**
 * Steps the fake clock by `stepMs` until `check` returns a truthy value, letting the cluster
 * quiet down before each look; fails naming `what` once `budgetMs` of fake time went by.
 */
export async function runUntil<T>(clock: FakeClock, check: Check<T>, what: string, options: { stepMs?: number; budgetMs?: number } = {}): Promise<T> {
  const { stepMs = 100, budgetMs = 60_000 } = options;
  const deadline = clock.now() + budgetMs;
  for (;;) {
    await quiet();
    const value = await check();
    if (value) return value;
    if (clock.now() >= deadline) throw new Error(`not within ${budgetMs} ms of fake time: ${what}`);
    await clock.advance(stepMs);
  }
}

/** Lets `ms` of fake time go by in steps of `stepMs`, the cluster quiet after each. */
export async function pass(clock: FakeClock, ms: number, stepMs = 1_000): Promise<void> {
  for (let passed = 0; passed < ms; passed += stepMs) {
    await clock.advance(Math.min(stepMs, ms - passed));
    await quiet();
  }
}
