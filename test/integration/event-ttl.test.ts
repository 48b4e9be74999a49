import { afterEach, describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../cloud/controllers/events.js';
import { FakeClock } from '../../shared/clock.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass } from '../support/settle.js';

const TTL_MS = 10 * 60_000;
const events = { resource: 'events', namespace: 'default' };

/** kube-apiserver's --event-ttl in the in-process cluster, on fake time. */
describe('Events expire a TTL after their last write', () => {
  let c: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await c?.stop();
    c = undefined;
  });

  const record = (cluster: Cluster<FakeClock>, name: string): Promise<KubeEvent> => {
    const now = new Date(cluster.clock.now()).toISOString();
    return cluster.api.create<KubeEvent>(events, {
      apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'nginx' },
      reason: 'Pulled', message: 'Container image "nginx" already present on machine', type: 'Normal', source: { component: 'kubelet', host: 'edge-1' },
      firstTimestamp: now, lastTimestamp: now, count: 1, reportingComponent: 'kubelet', reportingInstance: 'edge-1',
    });
  };
  const names = async (cluster: Cluster<FakeClock>): Promise<string[]> => (await cluster.api.list<KubeEvent>(events)).items.map((e) => e.metadata.name!).sort();

  it('deletes an old Event, keeps a fresh one and one that recurred since', async () => {
    c = await Cluster.start({ clock: new FakeClock(), nodes: 0, timing: { eventTtlMs: TTL_MS } });
    const cluster = c;
    await record(cluster, 'old');
    const recurring = await record(cluster, 'recurring');
    await pass(cluster.clock, TTL_MS / 2, 10_000);
    // It happens again: the recorder counts it up, with a new lastTimestamp.
    await cluster.api.replace<KubeEvent>({ ...events, name: 'recurring' }, { ...(await cluster.api.get<KubeEvent>({ ...events, name: 'recurring' })), count: 2, lastTimestamp: new Date(cluster.clock.now()).toISOString() });
    expect(recurring.count).toBe(1);
    await pass(cluster.clock, TTL_MS / 2 - 60_000, 10_000);
    await record(cluster, 'fresh');
    expect(await names(cluster)).toEqual(['fresh', 'old', 'recurring']);

    // A pass comes at least every minute (a tenth of the TTL here).
    await pass(cluster.clock, 2 * 60_000, 10_000);
    expect(await names(cluster)).toEqual(['fresh', 'recurring']);
    await pass(cluster.clock, TTL_MS / 2, 10_000);
    expect(await names(cluster)).toEqual(['fresh']);
  });
});
