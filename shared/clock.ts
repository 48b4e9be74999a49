/** The only source of time. Real code gets `realClock`; tests get a `FakeClock` and advance it. */
export type Cancel = () => void;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): Cancel;
  /** Runs `fn` every `ms` until cancelled. */
  setRepeating(ms: number, fn: () => void): Cancel;
  /** Resolves after `ms`, or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('aborted', 'AbortError');
}

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      cancel();
      reject(abortError(signal!));
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
  setRepeating(ms, fn) {
    const t = setInterval(fn, Math.max(1, ms));
    return () => clearInterval(t);
  },
  sleep(ms, signal) {
    return sleepWith(realClock, ms, signal);
  },
};

/** Wall-clock wait for tests and tools that must let real I/O happen (never in product code paths). */
export function wallDelay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface FakeTimer {
  id: number;
  due: number;
  every: number | undefined;
  fn: () => void;
}

/** A clock that moves only when told to. Due timers fire in order of due time, then creation. */
export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private nextId = 1;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): Cancel {
    return this.add(ms, undefined, fn);
  }

  setRepeating(ms: number, fn: () => void): Cancel {
    return this.add(ms, Math.max(1, ms), fn);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of timers waiting to fire. */
  get pending(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way.
   * Between timers it lets promise callbacks and pending I/O callbacks run, so
   * code awaiting a timer makes progress before the next one fires.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const next = this.earliest();
      if (!next || next.due > target) break;
      this.current = Math.max(this.current, next.due);
      if (next.every === undefined) this.remove(next.id);
      else next.due += next.every;
      next.fn();
    }
    this.current = target;
    await settle();
  }

  private add(ms: number, every: number | undefined, fn: () => void): Cancel {
    const id = this.nextId++;
    this.timers.push({ id, due: this.current + Math.max(0, ms), every, fn });
    return () => this.remove(id);
  }

  private remove(id: number): void {
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) if (!best || t.due < best.due || (t.due === best.due && t.id < best.id)) best = t;
    return best;
  }
}

/** Lets queued promise callbacks and already-arrived I/O callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
