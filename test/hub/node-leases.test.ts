import { describe, expect, it } from 'vitest';
import { microTime } from '../../cloud/control-plane-node/node-object.js';
import { leaseRenewIntervalMs, NodeLeases, renewalDue } from '../../cloud/hub/node-leases.js';
import type { Lease } from '../../shared/config-types.js';
import { FakeClock } from '../../shared/clock.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import { FakeApiClient } from '../support/fake-api-client.js';

const leaseRef = (name: string) => ({ resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease', name });

function leases(timing = defaultTiming) {
  const api = new FakeApiClient();
  const clock = new FakeClock();
  const uids: Record<string, string> = { 'edge-1': 'uid-1' };
  return { api, clock, leases: new NodeLeases({ apiAsNode: () => api, clock, timing, nodeUid: (n) => uids[n] }) };
}
const writes = (api: FakeApiClient): string[] => api.calls.filter((c) => /^(create|replace) leases/.test(c));

describe('NodeLeases', () => {
  it("renews every 10 s as the kubelet does (a quarter of the 40 s Lease), a little early heartbeat included", () => {
    expect(leaseRenewIntervalMs(defaultTiming)).toBe(10_000);
    expect(leaseRenewIntervalMs(scaleTiming(defaultTiming, 10))).toBe(1_000);
    expect([renewalDue(undefined, 0, 10_000), renewalDue(0, 7_999, 10_000), renewalDue(0, 8_000, 10_000)]).toEqual([true, false, true]);
  });

  it("creates the node's Lease, owned by its Node, held by the node for 40 s, then renews it", async () => {
    const { api, clock, leases: l } = leases();
    const start = clock.now();
    await l.heartbeat('edge-1');
    const created = await api.get<Lease>(leaseRef('edge-1'));
    expect(created).toMatchObject({
      metadata: { name: 'edge-1', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'edge-1', uid: 'uid-1' }] },
      spec: { holderIdentity: 'edge-1', leaseDurationSeconds: 40, renewTime: microTime(start) },
    });
    await clock.advance(10_000);
    await l.heartbeat('edge-1');
    expect((await api.get<Lease>(leaseRef('edge-1'))).spec?.renewTime).toBe(microTime(start + 10_000));
  });

  it('writes at most once per renew interval however often the node beats, and a renewal reads nothing', async () => {
    const { api, clock, leases: l } = leases();
    for (let i = 0; i < 60; i++) {
      await l.heartbeat('edge-1');
      await clock.advance(1_000);
    }
    expect(writes(api)).toHaveLength(8); // 60 s of a heartbeat a second: at 0, 8, 16, … 56 s
    // Only the first heartbeat looks for a Lease; each renewal writes from the Lease last written.
    expect(api.calls.filter((c) => c.startsWith('get '))).toEqual(['get leases kube-node-lease/edge-1']);
  });

  it('reads the Lease again when someone else wrote it, and leaves a node not registered yet alone', async () => {
    const { api, clock, leases: l } = leases();
    const start = clock.now();
    await l.heartbeat('edge-1');
    const lease = await api.get<Lease>(leaseRef('edge-1'));
    await api.replace(leaseRef('edge-1'), { ...lease, metadata: { ...lease.metadata, labels: { touched: 'yes' } } });
    const reads = (): number => api.calls.filter((c) => c.startsWith('get leases')).length;
    const before = reads();
    await clock.advance(10_000);
    await l.heartbeat('edge-1');
    expect(reads() - before).toBe(1); // the write from the stale copy failed: read again
    expect(await api.get<Lease>(leaseRef('edge-1'))).toMatchObject({ metadata: { labels: { touched: 'yes' } }, spec: { renewTime: microTime(start + 10_000) } });
    await l.heartbeat('edge-9');
    await expect(api.get(leaseRef('edge-9'))).rejects.toThrow();
  });
});
