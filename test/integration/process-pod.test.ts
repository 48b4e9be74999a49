import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';

const ref = { resource: 'pods', namespace: 'default', name: 'ticker' };
const ticker: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ticker' },
  spec: {
    nodeName: 'edge-1', runtimeClassName: 'process',
    containers: [{ name: 'main', image: 'node', command: [process.execPath, '-e', "console.log('tick'); setInterval(() => {}, 1000)"] }],
  },
};

/** `runtimeClassName: process` runs a real process on the edge; deleting the pod stops it. */
describe('a pod on the process runtime', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('runs its command as a process, serves its log, and stops it when the pod is deleted', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.api.create(ref, ticker);
    await eventually(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'ticker Running', { wallTimeoutMs: 15_000 });
    const log = await eventually(c.clock, async () => {
      const res = await fetch(`${c.cloud.apiUrl.replace(/^https:/, 'http:')}/api/v1/namespaces/default/pods/ticker/log`, { headers: { authorization: `Bearer ${c.cloud.credentials.admin}` } });
      const text = await res.text();
      return text.includes('tick') && text;
    }, 'its log line');
    expect(log).toBe('tick\n');

    await c.api.delete(ref);
    await eventually(c.clock, async () => (await c.edge('edge-1').runtime.listContainers()).length === 0, 'the process stopped and removed', { wallTimeoutMs: 15_000 });
    await eventually(c.clock, async () => (await c.api.list<Pod>({ resource: 'pods', namespace: 'default' })).items.length === 0, 'the pod removed');
  });

  it('restarts its process when its image changes', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    const runtime = c.edge('edge-1').runtime;
    await c.api.create(ref, ticker);
    await eventually(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'ticker Running', { wallTimeoutMs: 15_000 });
    try {
      const [first] = await runtime.listContainers();
      await c.api.patch(ref, { spec: { containers: [{ name: 'main', image: 'node:20' }] } }, 'strategic');
      const status = await eventually(c.clock, async () => {
        const s = (await c.api.get<Pod>(ref)).status?.containerStatuses?.[0];
        return s?.restartCount === 1 && s.image === 'node:20' && s.state.running && s;
      }, 'main restarted with node:20', { wallTimeoutMs: 15_000 });
      expect(status.lastState.terminated).toBeDefined();
      const now = await runtime.listContainers();
      expect(now.map((x) => [x.attempt, x.image, x.state]).sort()).toEqual([[0, 'node', 'exited'], [1, 'node:20', 'running']]);
      expect(await runtime.processOf!(first!.id)).toBeUndefined();
    } finally {
      // The edge's processes outlive it (to be adopted): the pod's deletion stops them.
      await c.api.delete(ref);
      await eventually(c.clock, async () => (await runtime.listContainers()).length === 0, 'the process stopped and removed', { wallTimeoutMs: 15_000 });
    }
  });
});
