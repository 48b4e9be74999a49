import { describe, expect, it } from 'vitest';
import { scaleGrowthTargets } from './report-scale.js';

describe('scaleGrowthTargets', () => {
  it('sets each figure of a larger run beside the base run with its growth', () => {
    const rows = scaleGrowthTargets({
      nodes: 1000,
      podStartupMs: { p50: 400, p99: 900 },
      cloudRssMiB: 500,
      scale2000: { nodes: 2000, pods: 20000, podStartupMs: { p50: 500, p99: 1800 }, cloudRssMiB: 900 },
    });
    expect(rows.find((r) => r.figure === '2000 nodes / 20000 pods: pod startup p99 (ms)')).toEqual({
      figure: '2000 nodes / 20000 pods: pod startup p99 (ms)', measured: 1800, target: '(1000 nodes: 900; ×2)', met: undefined,
    });
    expect(rows.find((r) => r.figure.endsWith('cloud peak RSS (MiB)'))?.target).toBe('(1000 nodes: 500; ×1.8)');
    expect(rows.find((r) => r.figure.endsWith('scheduler throughput (pods bound/s)'))?.target).toBe('(1000 nodes: –; –)');
  });

  it('has nothing to add without a larger run', () => {
    expect(scaleGrowthTargets({ nodes: 1000, scaleEtcd: { nodes: 1000 } })).toEqual([]);
  });
});
