import { wallDelay } from '../shared/clock.js';

/**
 * Runs `call(0)` … `call(count - 1)` with at most `inFlight` open at once, call i starting no
 * earlier than i / perSecond seconds after the first when paced; returns each call's latency, ms.
 */
export async function pacedCalls(count: number, inFlight: number, call: (i: number) => Promise<unknown>, perSecond?: number): Promise<number[]> {
  const latencies: number[] = [];
  const start = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      if (perSecond) await wallDelay(Math.max(0, start + (i * 1000) / perSecond - performance.now()));
      const t = performance.now();
      await call(i);
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return latencies;
}
