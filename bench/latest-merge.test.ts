import { describe, expect, it } from 'vitest';
import { mergeLatest } from './latest-merge.js';
import { runScope } from './report.js';

const previous = {
  podStartupMs: { p99: 900 }, broker: { ratio: 1 }, scale2000: { nodes: 2000 }, scaleEtcd: { nodes: 1000 },
  onlySuites: ['scale'], date: 'before',
};

describe('mergeLatest', () => {
  it('keeps, after a full run, the figures only runs of their own measure, and names them', () => {
    const latest = mergeLatest(previous, { podStartupMs: { p99: 500 }, date: 'now' }, {});
    expect(latest).toEqual({
      podStartupMs: { p99: 500 }, date: 'now', scale2000: { nodes: 2000 }, scaleEtcd: { nodes: 1000 },
      keptFromEarlierRuns: ['scale2000', 'scaleEtcd'],
    });
  });

  it('drops, after a full run, a figure of the earlier runs that this run measures too', () => {
    expect(mergeLatest(previous, { broker: { ratio: 2 }, scale2000: { nodes: 2000, new: true } }, {})).toEqual({
      broker: { ratio: 2 }, scale2000: { nodes: 2000, new: true }, scaleEtcd: { nodes: 1000 }, keptFromEarlierRuns: ['scaleEtcd'],
    });
  });

  it('keeps every other figure after a run of some suites, and says which it ran', () => {
    const latest = mergeLatest({ ...previous, keptFromEarlierRuns: ['scaleEtcd'] }, { podStartupMs: { p99: 400 } }, { onlySuites: ['scale'] });
    expect(latest).toEqual({ ...previous, podStartupMs: { p99: 400 }, onlySuites: ['scale'] });
  });
});

describe('runScope', () => {
  it('tells the report which figures are not this run\'s', () => {
    expect(runScope({})).toBe('');
    expect(runScope({ onlySuites: ['scale'] })).toBe(' (only scale: the other figures are from earlier runs)');
    expect(runScope({ keptFromEarlierRuns: ['scale2000', 'scaleEtcd'] })).toBe(' (scale2000 and scaleEtcd: from earlier runs of their own)');
  });
});
