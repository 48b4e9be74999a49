import { describe, expect, it } from 'vitest';
import { formatApiRules, runApiRulesBench } from './api-rules.js';

describe('the write rules A/B (smoke size)', () => {
  it('runs both arms interleaved and compares each figure, rules on / off', async () => {
    const report = await runApiRulesBench({ pods: 30, rounds: 2, mutations: 6, inFlight: 3, pageSize: 7, lists: 1 });
    expect(report.on.rounds).toHaveLength(2);
    expect(report.off.rounds).toHaveLength(2);
    for (const arm of [report.on, report.off]) expect(arm.listMs > 0 && arm.pagedListMs > 0 && arm.mutatingP99Ms > 0).toBe(true);
    expect(report.onVsOff.applyP99Ms.ratio).toBeGreaterThan(0);
    expect(formatApiRules(report)).toContain('pagedListMs');
  });
});
