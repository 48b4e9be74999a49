import { describe, expect, it } from 'vitest';
import { createApiServer, ensureSystemNamespaces } from '../../cloud/apiserver/index.js';
import { claimNodeName, nodeNameTaken } from '../../cloud/control-plane-node/index.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
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

describe('claimNodeName: a create or a compare-and-swap of the Lease', () => {
  it('of two clouds claiming one name at once, one wins and the other is refused', async () => {
    const api = createApiServer({ store: new MemoryStore(), clock: realClock, logger: silentLogger, tokens: [{ token: 't', user: 'admin', role: 'admin' }] }).loopback('t');
    await ensureSystemNamespaces(api);
    const now = realClock.now();
    const results = await Promise.allSettled(['a:/d', 'b:/d'].map((cloud) => claimNodeName(api, 'cp', cloud, now, 40)));
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/node name cp is held by another running cloud \([ab]:\/d: its Lease kube-node-lease\/cp was renewed 0 s ago, for 40 s\)/);
    // The winner claims again (a restart): its own.
    const winner = ['a:/d', 'b:/d'][results.findIndex((r) => r.status === 'fulfilled')]!;
    await claimNodeName(api, 'cp', winner, now + 1000, 40);
  });
});
