import { describe, expect, it } from 'vitest';
import { planOrphans } from '../../cloud/controllers/pod-gc/plan.js';
import type { Pod } from '../../shared/types.js';

const pod = (name: string, deleting?: { grace: number }): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: name, ...(deleting ? { deletionTimestamp: 't', deletionGracePeriodSeconds: deleting.grace } : {}) },
  spec: { nodeName: 'gone', containers: [{ name: 'c', image: 'i' }] },
});

describe('planOrphans', () => {
  const quarantine = 40_000;
  it.each([
    ['the node exists', true, 0, [pod('a')], 50_000, { type: 'none' }],
    ['the node was never seen missing', false, undefined, [pod('a')], 50_000, { type: 'none' }],
    ['missing for less than the quarantine', false, 20_000, [pod('a')], 50_000, { type: 'wait', ms: 10_000 }],
    ['missing past the quarantine', false, 0, [pod('a'), pod('b')], 50_000, { type: 'delete', pods: [pod('a'), pod('b')] }],
    ['past it, with nothing bound', false, 0, [], 50_000, { type: 'none' }],
    ['past it: a pod deleted gracefully is forced, one already forced is left', false, 0, [pod('a', { grace: 30 }), pod('b', { grace: 0 })], 50_000, { type: 'delete', pods: [pod('a', { grace: 30 })] }],
  ] as const)('%s', (_what, exists, since, pods, now, expected) => {
    expect(planOrphans(exists, since, [...pods], now, quarantine)).toEqual(expected);
  });
});
