import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeEntry, END_OF_ARCHIVE } from '../../edge/runtime/sim-shell/ustar.js';
import { FakeClock } from '../../shared/clock.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import { STDERR, STDIN, STDOUT, type StreamRequest } from '../../shared/protocol/streams.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { runUntil } from '../support/settle.js';

const pods = { resource: 'pods', namespace: 'default' };
const claims = { resource: 'persistentvolumeclaims', namespace: 'default' };
const settings: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { greeting: 'hello' } };
const token: Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, type: 'Opaque', data: { key: Buffer.from('s3cret').toString('base64') } };
const claim: PersistentVolumeClaim = {
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};
/** A sim pod (no runtimeClassName) mounting one volume of each kind. */
const box: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box' },
  spec: {
    volumes: [
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'settings' } },
      { name: 'sec', secret: { secretName: 'token' } },
      { name: 'host', hostPath: { path: '/var/box', type: 'DirectoryOrCreate' } },
      { name: 'claim', persistentVolumeClaim: { claimName: 'data' } },
    ],
    containers: [{
      name: 'app', image: 'nginx',
      volumeMounts: [
        { name: 'scratch', mountPath: '/data' },
        { name: 'cfg', mountPath: '/etc/cfg', readOnly: true },
        { name: 'sec', mountPath: '/etc/secret', readOnly: true },
        { name: 'host', mountPath: '/host' },
        { name: 'claim', mountPath: '/claim' },
      ],
    }],
  },
};

/** What `kubectl cp ./<file> box:<dir>/<file>` runs: `tar -xmf - -C <dir>`, the file archived on its stdin. */
const copyInto = (dir: string): StreamRequest => ({ kind: 'exec', container: 'app', command: ['tar', '-xmf', '-', '-C', dir], stdin: true, stdout: true, stderr: true, tty: false });
const shell = (script: string): StreamRequest => ({ kind: 'exec', container: 'app', command: ['sh', '-c', script], stdin: false, stdout: true, stderr: true, tty: false });
const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

/**
 * A sim container's shell works on its volumes' real directories on the edge, as a process
 * pod's: every kind is made on disk (owner-only where the data dir is), and goes with the pod.
 */
describe('a sim pod’s volumes on the edge', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('takes `kubectl cp` into its emptyDir, reads its ConfigMap and Secret, writes its hostPath and claim; its volumes go with it', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 }));
    await c.api.create({ resource: 'configmaps', namespace: 'default' }, settings);
    await c.api.create({ resource: 'secrets', namespace: 'default' }, token);
    await c.api.create(claims, claim);
    await c.api.create(pods, box);
    const pod = await runUntil(c.clock, async () => {
      const p = await c.api.get<Pod>({ ...pods, name: 'box' });
      return p.status?.phase === 'Running' && p;
    }, 'box Running');

    const run = async (request: StreamRequest, input?: Buffer) => {
      const stream = await c.cloud.hub.streams.open(pod, request);
      if (input) {
        await stream.write(STDIN, input);
        stream.closeInput(STDIN);
      }
      const out = { [STDOUT]: '', [STDERR]: '' } as Record<number, string>;
      for (let chunk = await stream.read(); chunk; chunk = await stream.read()) out[chunk.channel] += chunk.data.toString();
      return { stdout: out[STDOUT], stderr: out[STDERR], ...(await stream.ended) };
    };

    const archive = (name: string, text: string) => Buffer.concat([encodeEntry({ name, type: 'file', mode: 0o644, mtime: c.clock.now(), data: Buffer.from(text) }), END_OF_ARCHIVE]);
    const ok = { stdout: '', stderr: '', exitCode: 0 };
    expect(await run(copyInto('/data'), archive('file', 'copied in\n'))).toEqual(ok);
    expect(await run(copyInto('/host'), archive('h', 'on the host\n'))).toEqual(ok);
    expect(await run(copyInto('/claim'), archive('c', 'on the claim\n'))).toEqual(ok);
    expect(await run(shell('cat /data/file /etc/cfg/greeting /etc/secret/key'))).toEqual({ stdout: 'copied in\nhellos3cret', stderr: '', exitCode: 0 });
    expect(await run(copyInto('/etc/cfg'), archive('x', 'no'))).toEqual({ stdout: '', stderr: 'tar: x: Cannot open: Read-only file system\n', exitCode: 2 });

    // Where the shell wrote: the pod's own directories (owner-only, as a process pod's), and the node's paths.
    const edgeDir = join(c.dir, 'edges', 'edge-1');
    const podDir = join(edgeDir, 'pods', pod.metadata.uid!);
    const emptyDir = join(podDir, 'volumes', 'kubernetes.io~empty-dir', 'scratch');
    expect(await readFile(join(emptyDir, 'file'), 'utf8')).toBe('copied in\n');
    expect([await mode(podDir), await mode(emptyDir)]).toEqual([0o700, 0o700]);
    expect(await readFile(join(edgeDir, 'host', 'var', 'box', 'h'), 'utf8')).toBe('on the host\n');
    const bound = (await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'data' })).spec.volumeName!;
    const volume = await c.api.get<PersistentVolume>({ resource: 'persistentvolumes', name: bound });
    const claimFile = join(edgeDir, 'host', volume.spec.hostPath!.path, 'c');
    expect(await readFile(claimFile, 'utf8')).toBe('on the claim\n');

    if (hasKubectl) {
      // The real kubectl cp, as the bug was seen: into the emptyDir, and back out through cat.
      const home = join(c.dir, 'kubectl'); // removed with the cluster
      await mkdir(home);
      const kubectl = kubectlIn(home, c.cloud.kubeconfigPath);
      await writeFile(join(home, 'local.txt'), 'through kubectl cp\n');
      expect(await kubectl('cp', join(home, 'local.txt'), 'box:/data/local.txt')).toMatchObject({ code: 0, stderr: '' });
      expect(await readFile(join(emptyDir, 'local.txt'), 'utf8')).toBe('through kubectl cp\n');
      expect(await kubectl('exec', 'box', '--', 'cat', '/data/local.txt')).toMatchObject({ code: 0, stdout: 'through kubectl cp\n' });
    }

    // The pod goes, and its volumes with it; what is the node's (hostPath, the claim's volume) stays.
    await c.api.delete({ ...pods, name: 'box' }, { gracePeriodSeconds: 0 });
    await runUntil(c.clock, async () => (await readdir(join(edgeDir, 'pods'))).length === 0, "the pod's volumes removed");
    expect(await readFile(claimFile, 'utf8')).toBe('on the claim\n');
    expect(await readFile(join(edgeDir, 'host', 'var', 'box', 'h'), 'utf8')).toBe('on the host\n');
  });
});
