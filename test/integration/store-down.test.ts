import { afterEach, describe, expect, it } from 'vitest';
import type { ComponentState } from '../../cloud/components/component.js';
import { FakeClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { newPod, podRef, startFirstPod } from '../support/cluster-pods.js';
import { pass, runUntil } from '../support/settle.js';


/** An HTTP request to the cloud as its admin, over plain http (the same port answers both). */
async function asAdmin(c: Cluster, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const url = c.cloud.apiUrl.replace(/^https:/, 'http:') + path;
  const headers = { authorization: `Bearer ${c.cloud.credentials.admin}`, 'content-type': 'application/json', accept: 'application/json' };
  const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function componentStates(c: Cluster): Promise<Map<string, ComponentState>> {
  const res = await asAdmin(c, 'GET', '/kedge/v1/components');
  expect(res.status).toBe(200);
  return new Map((res.json.items as ComponentState[]).map((s) => [s.name, s]));
}

/** The seed's passage: etcd is down — running pods are unaffected, but no new decisions are made. */
describe('store stopped while the cloud runs', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('keeps pods running on the edges, refuses writes with 503, and loses nothing once started again', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    const running = await startFirstPod(c, 'before');
    const node = running.spec.nodeName!;

    const stopped = await asAdmin(c, 'POST', '/kedge/v1/components/store/stop');
    expect(stopped.json).toMatchObject({ name: 'store', running: false, message: 'stopped' });
    const refused = await asAdmin(c, 'POST', '/api/v1/namespaces/default/pods', newPod('during'));
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503, message: expect.stringContaining('the store is down') });
    const read = await c.api.get<Pod>(podRef('before')).catch((e: unknown) => e);
    expect(isKedgeError(read, 'Unavailable')).toBe(true);

    await pass(c.clock, 30_000, 1_000);
    const edgeView = (await c.edgePods(node)).find((p) => p.metadata.name === 'before');
    expect(edgeView?.status?.phase).toBe('Running');
    expect(edgeView?.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    const during = await componentStates(c);
    expect(during.get('store')).toMatchObject({ running: false, healthy: false, stoppable: true });
    expect(during.get('scheduler')).toMatchObject({ running: true });
    expect(during.get('hub')).toMatchObject({ running: true, healthy: true });

    expect((await asAdmin(c, 'POST', '/kedge/v1/components/store/start')).json).toMatchObject({ name: 'store', running: true });
    expect((await componentStates(c)).get('store')).toMatchObject({ running: true, healthy: true, message: 'ok' });
    const kept = await c.api.get<Pod>(podRef('before'));
    expect(kept.metadata.uid).toBe(running.metadata.uid);
    await c.api.create(podRef('after'), newPod('after'));
    await runUntil(c.clock, async () => {
      const pod = await c.api.get<Pod>(podRef('after'));
      return pod.spec.nodeName !== undefined && pod.status?.phase === 'Running';
    }, 'the new pod scheduled and Running');
    expect((await c.api.get<Pod>(podRef('before'))).status?.phase).toBe('Running');
  });

  it('lists the cloud parts beside the control plane, and will not stop the apiserver or the hub', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    const states = await componentStates(c);
    expect([...states.keys()].slice(0, 6)).toEqual(['apiserver', 'store', 'broker', 'hub', 'scheduler', 'controller-manager']);
    expect([...states.values()].slice(0, 4).every((s) => s.running && s.healthy)).toBe(true);
    for (const name of ['apiserver', 'hub']) {
      const res = await asAdmin(c, 'POST', `/kedge/v1/components/${name}/stop`);
      expect([res.status, res.json.reason]).toEqual([400, 'BadRequest']);
      expect(res.json.message).toMatch(new RegExp(`^${name} cannot be stopped: `));
    }
  });

  it('stops and starts the embedded broker: the hub shows it gone, and the edge comes back', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.cloud.components.stop('broker');
    await runUntil(c.clock, () => c.cloud.components.list().find((s) => s.name === 'hub')?.healthy === false, 'the hub to lose the broker');
    expect((await componentStates(c)).get('hub')?.message).toBe(`not connected to the broker at ${c.cloud.brokerUrl}`);
    expect((await c.cloud.components.start('broker')).running).toBe(true);
    await runUntil(c.clock, () => c.cloud.hub.connectedNodes().includes('edge-1'), 'the edge back');
    expect((await componentStates(c)).get('hub')).toMatchObject({ healthy: true, message: 'ok (leader)' });
  });
});
