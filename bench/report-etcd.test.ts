import { describe, expect, it } from 'vitest';
import { targets } from './report.js';

const comparison = (ratio: number) => ({ ratio, medianRoundRatio: ratio, p: 0.2, baseline: 1, contender: ratio });

describe('the etcd rows of the report', () => {
  it('give the embedded figure with etcd of one and three members and their ratios beside it', () => {
    const etcd = {
      settings: { objects: 1000, writers: 64, storeRounds: 7, apiRounds: 5, api: { pods: 300, callsPerSecond: 100 } },
      stores: { embedded: { writesPerSecond: 12000 }, etcd1: { writesPerSecond: 1300 }, etcd3: { writesPerSecond: 1100 } },
      vsEmbedded: { etcd1: { writesPerSecond: comparison(0.11) }, etcd3: { writesPerSecond: comparison(0.09) } },
    };
    const row = targets({ etcd }).find((t) => t.figure.startsWith('store writes/s, embedded'))!;
    expect(row.measured).toBe(12000);
    expect(row.target).toBe('(etcd 1 member 1300, ratio 0.11; 3 members 1100, ratio 0.09)');
  });

  it('judge the scale suite on etcd by the same targets as on the embedded store', () => {
    const rows = targets({ scaleEtcd: { store: 'etcd, 3 members', nodes: 50, pods: 500, podStartupMs: { p99: 2500 }, apiMutatingP99Ms: 80 } });
    const onEtcd = rows.filter((t) => t.figure.startsWith('on etcd'));
    expect(onEtcd.map((t) => [t.measured, t.met])).toEqual([[2500, false], [80, true]]);
    expect(targets({}).filter((t) => t.figure.startsWith('on etcd')).every((t) => t.measured === undefined)).toBe(true);
  });
});
