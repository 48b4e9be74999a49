import { describe, expect, it } from 'vitest';
import { startupStages, type PodPath } from './startup-stages.js';

const path = (start: number, legs: number[]): PodPath => {
  const points = ['sentAt', 'created', 'bound', 'sent', 'received', 'statusSent', 'reported', 'running', 'seenAt'] as const;
  const out: PodPath = {};
  let t = start;
  points.forEach((p, i) => {
    if (i > 0) t += legs[i - 1]!;
    out[p] = t;
  });
  return out;
};

describe('startupStages', () => {
  it('splits each pod into its legs and names where the slowest one spent its time', () => {
    const paths = [path(0, [1, 2, 3, 1, 4, 1, 5, 6]), path(10, [1, 2, 3, 1, 400, 1, 5, 6]), path(20, [1, 2, 3, 1, 4, 1, 5, 6])];
    const figures = startupStages(paths)!;
    expect(figures.pods).toBe(3);
    expect(figures.stages.edge).toEqual({ p50: 4, p99: 400 });
    expect(figures.slowest).toEqual({ api: 1, schedule: 2, hub: 3, down: 1, edge: 400, up: 1, status: 5, watch: 6, totalMs: 419 });
    expect(figures.tail).toMatchObject({ pods: 1, edge: 400, totalMs: 419 });
  });

  it('leaves out pods that miss a point, and has nothing to say without any', () => {
    const partial: PodPath = { sentAt: 0, created: 1 };
    expect(startupStages([partial])).toBeUndefined();
    expect(startupStages([partial, path(0, [1, 1, 1, 1, 1, 1, 1, 1])])!.pods).toBe(1);
  });
});
