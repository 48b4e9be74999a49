/** The page's only timers and time (the browser's): everything else gets time passed in. */
export interface Timers {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Calls `fn` every `ms` until `signal` aborts. */
  every(ms: number, fn: () => void, signal: AbortSignal): void;
}

export const browserTimers: Timers = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    }),
  every(ms, fn, signal) {
    const t = setInterval(fn, ms);
    signal.addEventListener('abort', () => clearInterval(t), { once: true });
  },
};
