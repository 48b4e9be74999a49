import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { runUntil } from '../support/settle.js';

const ref = { resource: 'pods', namespace: 'default', name: 'web' };
const web: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
  spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'kedge.io/web:1', env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }] }] },
};

async function kubectlGetPods(kubeconfig: string): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'kedge-cfgerr-'));
  try {
    return (await kubectlIn(home, kubeconfig)('get', 'pods', '--no-headers')).stdout;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** A pod whose env names a ConfigMap that does not exist waits as kube shows it, then starts once it is created and synced to its edge. */
describe('CreateContainerConfigError through the API and kubectl', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(() => cluster?.stop());

  it('shows CreateContainerConfigError in the status and in kubectl get pods, then Running', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.api.create(ref, web);
    const waiting = async () => (await c.api.get<Pod>(ref)).status?.containerStatuses?.[0]?.state.waiting;
    await runUntil(c.clock, async () => (await waiting())?.reason === 'CreateContainerConfigError', 'web waiting in CreateContainerConfigError');
    expect(await waiting()).toEqual({ reason: 'CreateContainerConfigError', message: 'configmap "settings" not found' });
    if (hasKubectl) expect(await kubectlGetPods(c.cloud.kubeconfigPath)).toMatch(/^web\s+0\/1\s+CreateContainerConfigError\s+0\s+/);

    // Created through the API: the cloud syncs it to the edge whose pod references it [SYNC-18].
    await c.api.create({ resource: 'configmaps', namespace: 'default' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' } });
    await runUntil(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'web Running');
  });
});
