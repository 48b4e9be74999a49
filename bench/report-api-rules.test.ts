import { describe, expect, it } from 'vitest';
import { targets } from './report.js';

describe('the write rules rows of the report', () => {
  it('give the figure with the rules on, and beside it the figure without and their ratio', () => {
    const comparison = { ratio: 1.4, medianRoundRatio: 1.3, p: 0.03, baseline: 10, contender: 14 };
    const apiRules = { settings: { pods: 10000, rounds: 7, inFlight: 16, pageSize: 500 }, on: { listMs: 140 }, off: { listMs: 100 }, onVsOff: { listMs: comparison } };
    const row = targets({ apiRules }).find((t) => t.figure.includes('unpaged'))!;
    expect(row.figure).toBe('the same: list of all 10000 pods, unpaged (ms)');
    expect([row.measured, row.target]).toEqual([140, '(rules off 100; on / off 1.4, per round 1.3, p 0.03)']);
    expect(targets({}).filter((t) => t.figure.includes('field ownership')).every((t) => t.measured === undefined)).toBe(true);
  });
});
