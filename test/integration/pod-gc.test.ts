import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { KubeEvent } from '../../cloud/controllers/events.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const pods = { resource: 'pods', namespace: 'default' };
const boundTo = (name: string, nodeName: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'i' }] },
});

/** The pod GC against a running cluster: orphans of a node that is not there go after the grace period, others stay. */
describe('pod GC', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('deletes pods bound to a missing node, also those written while it was stopped, and leaves the rest', async () => {
    const c = (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 }));
    await c.cloud.components.stop('pod-gc');
    await c.api.create(pods, boundTo('ghost-early', 'ghost'));
    await c.api.create(pods, boundTo('real', 'edge-1'));
    await c.cloud.components.start('pod-gc'); // its first lists name 'ghost' before they name the nodes; 'ghost-2' comes after
    await c.api.create(pods, boundTo('ghost-late', 'ghost-2'));
    await pass(c.clock, c.timing.nodeMonitorGraceMs / 2, 1_000);
    expect((await c.api.list<Pod>(pods)).items.map((p) => p.metadata.name).sort()).toEqual(['ghost-early', 'ghost-late', 'real']);
    await runUntil(c.clock, async () => (await c.api.list<Pod>(pods)).items.length === 1, 'the ghost pods deleted');
    expect((await c.api.list<Pod>(pods)).items.map((p) => p.metadata.name)).toEqual(['real']);
    const reasons = (await c.api.list<KubeEvent>({ resource: 'events', namespace: 'default' })).items.filter((e) => e.reason === 'PodGC');
    expect(reasons.map((e) => e.involvedObject.name).sort()).toEqual(['ghost-early', 'ghost-late']);
  });
});
