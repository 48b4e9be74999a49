import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';
import { stopKillingProcesses } from '../support/process-cluster.js';

const pods = { resource: 'pods', namespace: 'default' };
const claims = { resource: 'persistentvolumeclaims', namespace: 'default' };
const wall = { wallTimeoutMs: 20_000 };

/** Appends a line to the volume's log; the first run ever then exits (its container restarts), later runs stay up. */
const appender = `
const fs = require('node:fs');
const log = process.env.KEDGE_ROOT + '/data/log';
fs.appendFileSync(log, 'run ' + process.pid + '\\n');
if (fs.readFileSync(log, 'utf8').split('\\n').filter(Boolean).length === 1) process.exit(0);
setInterval(() => {}, 1000);`;

const claim: PersistentVolumeClaim = {
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local-path', resources: { requests: { storage: '1Gi' } } },
};
const writer: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'writer' },
  spec: {
    runtimeClassName: 'process',
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    containers: [{ name: 'app', image: 'node', command: [process.execPath, '-e', appender], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
  },
};

/**
 * Data on a local PersistentVolume survives container restarts, the pod's deletion and
 * re-creation, edge restarts and node reboots: the claim and its volume reach the edge by the
 * sync [SYNC-18], and the edge mounts the volume's hostPath under its host root.
 */
describe('a process pod on a local-path volume', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    const c = cluster;
    cluster = undefined;
    if (c) await stopKillingProcesses(c);
  });

  it('keeps its lines through a container restart, a re-created pod, an edge restart and a reboot', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2 }));
    await eventually(c.clock, async () => (await c.api.list({ resource: 'nodes' })).items.length === 2, 'two nodes', wall);
    await c.api.create(claims, claim);
    await c.api.create(pods, writer);

    const pod = () => c.api.get<Pod>({ ...pods, name: 'writer' });
    const node = await eventually(c.clock, async () => (await pod()).spec.nodeName, 'the writer scheduled', wall);
    const bound = await eventually(c.clock, async () => (await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'data' })).spec.volumeName, 'the claim bound', wall);
    const volume = await c.api.get<PersistentVolume>({ resource: 'persistentvolumes', name: bound });
    // Where the data lives: the volume's hostPath under the edge's host root (<data dir>/host).
    const file = join(c.dir, 'edges', node, 'host', volume.spec.hostPath!.path, 'log');
    const lines = async (): Promise<string[]> => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    const running = async (restarts: number) => {
      const status = (await pod()).status;
      return status?.phase === 'Running' && status.containerStatuses?.[0]?.restartCount === restarts && status.containerStatuses[0].state?.running !== undefined;
    };

    // The first run exits; the restarted container finds its line and adds its own.
    await eventually(c.clock, async () => (await lines()).length === 2 && (await running(1)), 'two runs, the second one up', wall);
    const [first, second] = await lines();
    expect(first).not.toBe(second);

    // The pod deleted and re-created with the same claim: it lands on the volume's node, and finds both lines.
    await c.api.delete({ ...pods, name: 'writer' }, { gracePeriodSeconds: 0 });
    await eventually(c.clock, async () => (await c.edge(node).runtime.listContainers()).length === 0, 'the first pod stopped', wall);
    await eventually(c.clock, async () => (await c.api.list(pods)).items.length === 0, 'the first pod gone', wall);
    await c.api.create(pods, writer);
    await eventually(c.clock, async () => (await lines()).length === 3 && (await running(0)), 'the re-created pod up', wall);
    expect((await pod()).spec.nodeName).toBe(node);

    // The edge restarts: it adopts the process; the volume and its lines are as they were.
    const [adoptable] = await c.edge(node).runtime.listContainers();
    await c.stopEdge(node);
    await c.startEdge(node);
    await eventually(c.clock, async () => (await c.edgePods(node)).some((p) => p.status?.phase === 'Running'), 'the pod running after the edge restart', wall);
    expect((await c.edge(node).runtime.listContainers()).map((x) => x.id)).toEqual([adoptable!.id]);
    expect(await lines()).toHaveLength(3);

    // The node reboots: its processes are gone; the pod's container starts again and finds all three lines.
    await c.stopEdge(node);
    await c.startEdge(node, { reboot: true });
    await eventually(c.clock, async () => (await lines()).length === 4, 'a fourth run after the reboot', wall);
    expect((await lines()).slice(0, 2)).toEqual([first, second]);
  });
});
