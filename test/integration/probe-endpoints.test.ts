import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Endpoints } from '../../shared/service-types.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';

/** A process serving /healthz on its pod IP with 200 while the file `flag` exists, else 503. */
function server(port: number, flag: string): Pod {
  const script = `require('node:http').createServer((req, res) => { res.statusCode = require('node:fs').existsSync(${JSON.stringify(flag)}) ? 200 : 503; res.end(); }).listen(${port}, process.env.POD_IP)`;
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      nodeName: 'edge-1', runtimeClassName: 'process',
      containers: [{
        name: 'main', image: 'node', command: [process.execPath, '-e', script], ports: [{ name: 'http', containerPort: port }],
        // It listens on its pod address, where the probe (no host given) goes, as in kube.
        env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        // Timeouts run on the fake clock, which here runs ahead of the process: a generous one.
        readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1, failureThreshold: 1, timeoutSeconds: 60 },
      }],
    },
  };
}

/** The readiness probe, run on the edge, decides whether the pod is behind its Service. */
describe('a readiness probe and the cloud Endpoints', () => {
  let cluster: Cluster<FakeClock> | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    // A process container outlives its edge: stop it first.
    const runtime = cluster?.edge('edge-1').runtime;
    for (const c of (await runtime?.listContainers()) ?? []) await runtime!.stopContainer(c.id, 0);
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    cluster = undefined;
  });

  it('moves the pod between notReadyAddresses and addresses as the probe flips', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-probe-endpoints-'));
    const flag = join(dir, 'healthy');
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.api.create({ resource: 'services', namespace: 'default' }, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    await c.api.create({ resource: 'pods', namespace: 'default' }, server(await freePort(), flag));
    const endpoints = async () => (await c.api.get<Endpoints>({ resource: 'endpoints', namespace: 'default', name: 'web' }).catch(() => undefined))?.subsets?.[0];
    const opts = { stepMs: 100, wallTimeoutMs: 15_000 };

    await eventually(c.clock, async () => (await endpoints())?.notReadyAddresses?.length === 1, 'the pod listed not ready', opts);
    await writeFile(flag, '');
    await eventually(c.clock, async () => (await endpoints())?.addresses?.length === 1, 'the pod listed ready', opts);
    await rm(flag);
    await eventually(c.clock, async () => (await endpoints())?.notReadyAddresses?.length === 1, 'the pod listed not ready again', opts);
  });
});
