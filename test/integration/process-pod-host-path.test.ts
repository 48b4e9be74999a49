import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';

const ref = { resource: 'pods', namespace: 'default', name: 'writer' };
const writer: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'writer' },
  spec: {
    nodeName: 'edge-1', runtimeClassName: 'process', restartPolicy: 'Never',
    volumes: [{ name: 'data', hostPath: { path: '/var/lib/app', type: 'DirectoryOrCreate' } }, { name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } }],
    containers: [{
      name: 'main', image: 'node', workingDir: '/work',
      command: [process.execPath, '-e', "const fs = require('node:fs'); fs.writeFileSync('../data/hello', 'from ' + fs.readFileSync(process.env.KEDGE_ROOT + '/etc/info/name', 'utf8'));"],
      volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'info', mountPath: '/etc/info' }],
    }],
  },
};

/** An edge resolves a process pod's hostPath under its host root (default `<data dir>/host`), and the process reaches it at its mountPath. */
describe('a process pod with a hostPath volume', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(() => cluster?.stop());

  it('writes through its mountPath into <edge data dir>/host/<path>, from its workingDir inside its root', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.api.create(ref, writer);
    await eventually(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Succeeded', 'writer Succeeded', { wallTimeoutMs: 15_000 });
    expect(await readFile(join(c.dir, 'edges', 'edge-1', 'host', 'var', 'lib', 'app', 'hello'), 'utf8')).toBe('from writer');
    const status = (await c.api.get<Pod>(ref)).status!.containerStatuses![0]!;
    expect(status.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }, { name: 'info', mountPath: '/etc/info' }]);
  });
});
