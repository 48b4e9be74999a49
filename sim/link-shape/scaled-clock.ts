import type { Clock } from '../../shared/clock.js';

/**
 * The cluster's time as a Clock: with `--time-scale S` a cluster second passes in 1/S of a real
 * one, so a link profile (300 ms of latency, 256 kbit/s) and a flap (5 s every 30 s) are read in
 * cluster time, like every other interval of the demo.
 */
export function clusterClock(clock: Clock, scale: number): Clock {
  if (scale === 1) return clock;
  const origin = clock.now();
  const self: Clock = {
    now: () => origin + (clock.now() - origin) * scale,
    setTimer: (ms, fn) => clock.setTimer(ms / scale, fn),
    setRepeating: (ms, fn) => clock.setRepeating(ms / scale, fn),
    sleep: (ms, signal) => clock.sleep(ms / scale, signal),
  };
  return self;
}
