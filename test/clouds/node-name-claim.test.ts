import { describe, expect, it } from 'vitest';
import { nodeNameTaken } from '../../cloud/control-plane-node/index.js';
import type { Lease } from '../../shared/config-types.js';

const lease = (holder: string | undefined, renewedAt: number, seconds = 40): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'cp', namespace: 'kube-node-lease', ...(holder ? { annotations: { 'kedge.io/cloud': holder } } : {}) },
  spec: { holderIdentity: 'cp', leaseDurationSeconds: seconds, renewTime: new Date(renewedAt).toISOString() },
});

describe('nodeNameTaken: a control-plane node name is free unless another cloud renews its Lease', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['no Lease', undefined, false],
    ['its own Lease, just renewed (a restart after kill -9)', lease('me', now - 1000), false],
    ['a Lease no cloud marked (a cloud from before)', lease(undefined, now - 1000), false],
    ["another cloud's Lease past its duration", lease('other', now - 40_000), false],
    ["another cloud's Lease within its duration", lease('other', now - 39_000), true],
  ])('%s', (_what, current, taken) => {
    expect(nodeNameTaken(current, 'me', now) !== undefined).toBe(taken);
  });
});
