import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { ConfigMap } from '../../shared/config-types.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';
import { stopKillingProcesses } from '../support/process-cluster.js';

const wall = { wallTimeoutMs: 15_000 };
const pods = { resource: 'pods', namespace: 'default' };
const configMaps = { resource: 'configmaps', namespace: 'default' };

/** Prints, whenever either changes, MODE from its env, the mounted file via $KEDGE_ROOT, and the same file by a relative path. */
const reader = `
const fs = require('node:fs');
const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch { return 'missing'; } };
let last = '';
setInterval(() => {
  const line = 'env=' + process.env.MODE + ' file=' + read(process.env.KEDGE_ROOT + '/etc/cfg/mode') + ' relative=' + read('etc/cfg/mode');
  if (line !== last) console.log(last = line);
}, 20);`;

const web: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
  spec: {
    nodeName: 'edge-1', runtimeClassName: 'process',
    volumes: [{ name: 'cfg', configMap: { name: 'settings' } }],
    containers: [{
      name: 'app', image: 'node', command: [process.execPath, '-e', reader],
      env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }],
      volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
    }],
  },
};
const settings: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' } };

/**
 * A real process reads a ConfigMap, created through the API and synced to its edge [SYNC-18], as
 * env and as a mounted file; the file follows the ConfigMap, the env does not.
 */
describe('a process pod with a ConfigMap as env and as a volume', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    const c = cluster;
    cluster = undefined;
    if (c) await stopKillingProcesses(c);
  });

  it('reads env=fast and the file at $KEDGE_ROOT/etc/cfg; after the ConfigMap changes, the file says slow and the env still fast', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 }));
    const runtime = () => c.edge('edge-1').runtime;
    const logged = async () => {
      const [container] = await runtime().listContainers();
      return container ? (await runtime().logs(container.id)).map((l) => l.text) : [];
    };
    await c.api.create(configMaps, settings);
    await c.api.create(pods, web);
    await eventually(c.clock, async () => (await logged()).includes('env=fast file=fast relative=fast'), 'the first reading', wall);
    const status = await eventually(c.clock, async () => (await c.api.get<Pod>({ ...pods, name: 'web' })).status?.containerStatuses?.[0], 'the container status', wall);
    expect(status.volumeMounts).toEqual([{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }]);

    // The edge restarts: the new one adopts the process, its mounts and root, and keeps its volume up to date.
    const [before] = await runtime().listContainers();
    await c.stopEdge('edge-1');
    await c.startEdge('edge-1');
    await eventually(c.clock, async () => (await runtime().listContainers()).length === 1, 'the process adopted', wall);
    const [adopted] = await runtime().listContainers();
    expect(adopted).toMatchObject({ id: before!.id, state: 'running', mounts: before!.mounts });

    const current = await c.api.get<ConfigMap>({ ...configMaps, name: 'settings' });
    await c.api.replace({ ...configMaps, name: 'settings' }, { ...current, data: { mode: 'slow' } });
    await eventually(c.clock, async () => (await logged()).includes('env=fast file=slow relative=slow'), 'the file changed, the env not', wall);
    const podDirs = join(c.dir, 'edges', 'edge-1', 'pods');
    expect(await readdir(podDirs)).toHaveLength(1);

    await c.api.delete({ ...pods, name: 'web' }, { gracePeriodSeconds: 0 });
    await eventually(c.clock, async () => (await runtime().listContainers()).length === 0 && (await readdir(podDirs)).length === 0, 'the pod and its volumes gone', wall);
  });
});
