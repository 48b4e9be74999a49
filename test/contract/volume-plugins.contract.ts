import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { containerMounts } from '../../edge/volumes/container-mounts.js';
import type { PodObjects } from '../../edge/volumes/pod-objects.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { VolumeHost } from '../../edge/volumes/volume-plan.js';
import { VolumeManager } from '../../edge/volumes/volume-manager.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { Pod, Volume } from '../../shared/types.js';

export interface VolumeFile {
  text: string;
  mode: number;
}

/** One VolumeHost with the runtime whose pods use it, and how to look at what it made. */
export interface VolumeHarness {
  host: VolumeHost;
  runtime: Runtime;
  /** The runtime handler its pods name. */
  handler: string;
  dataDir: string;
  hostRoot: string;
  /** The files a volume holds, by path inside it. */
  files(dir: string): Promise<Record<string, VolumeFile>>;
  /** Changes with every write of the volume's payload. */
  version(dir: string): Promise<string>;
  /** Puts a directory or file on the host (a path under the host root). */
  seedHost(path: string, kind: 'dir' | 'file'): Promise<void>;
  /** What is at a host path (resolved under the host root) now. */
  hostKind(path: string): Promise<'dir' | 'file' | 'missing'>;
  /** The text a container reads at `path` (absolute, in the container). */
  readInContainer(containerId: string, path: string): Promise<string>;
  cleanup(): Promise<void>;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * The volume plugins and VolumeHost contract: every host (disk, for process pods; memory, for
 * simulated ones) sets up the same volumes with the same files, modes, errors and paths.
 */
export function volumePluginsContract(name: string, open: () => Promise<VolumeHarness>): void {
  describe(`volume plugins: ${name}`, () => {
    let h: VolumeHarness;
    let configMaps: Map<string, ConfigMap>;
    let secrets: Map<string, Secret>;
    let claims: Map<string, PersistentVolumeClaim> | undefined;
    let volumes: Map<string, PersistentVolume>;
    let manager: VolumeManager;
    const objects: PodObjects = {
      configMap: (ns, n) => configMaps.get(`${ns}/${n}`),
      secret: (ns, n) => secrets.get(`${ns}/${n}`),
      persistentVolumeClaim: (ns, n) => claims?.get(`${ns}/${n}`),
      persistentVolume: (n) => volumes.get(n),
    };
    const putConfigMap = (n: string, data: Record<string, string>, binaryData?: Record<string, string>) =>
      configMaps.set(`default/${n}`, { metadata: { name: n, namespace: 'default' }, data, ...(binaryData ? { binaryData } : {}) });
    const podWith = (vols: Volume[], uid = 'uid-1'): Pod => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', uid, labels: { app: 'web', tier: 'front' }, annotations: { note: 'say "hi"' } },
      spec: { runtimeClassName: h.handler, containers: [{ name: 'app', resources: { limits: { cpu: '250m', memory: '64Mi' } } }], volumes: vols },
    });
    const dirOf = (plugin: string, vol: string, uid = 'uid-1') => `${h.dataDir}/pods/${uid}/volumes/kubernetes.io~${plugin}/${vol}`;
    const setUp = async (vols: Volume[]) => manager.setUpPod(podWith(vols), objects);

    beforeEach(async () => {
      h = await open();
      configMaps = new Map();
      secrets = new Map();
      claims = new Map();
      volumes = new Map();
      manager = new VolumeManager({ hostFor: () => h.host, hosts: [h.host] });
    });
    afterEach(() => h.cleanup());

    it('configMap: every key (data and binaryData) a file, mode 0644; its path as kubelet lays it out', async () => {
      putConfigMap('cfg', { mode: 'fast', 'app.conf': 'a=1\n' }, { blob: b64('bytes') });
      const result = await setUp([{ name: 'cfg', configMap: { name: 'cfg' } }]);
      expect(result.ready).toBe(true);
      expect(result.paths.get('cfg')).toBe(dirOf('configmap', 'cfg'));
      expect(await h.files(dirOf('configmap', 'cfg'))).toEqual({
        mode: { text: 'fast', mode: 0o644 }, 'app.conf': { text: 'a=1\n', mode: 0o644 }, blob: { text: 'bytes', mode: 0o644 },
      });
    });

    it('items: only those keys, at their paths; an item\'s mode wins over defaultMode', async () => {
      putConfigMap('cfg', { a: '1', b: '2', c: '3' });
      await setUp([{ name: 'cfg', configMap: { name: 'cfg', defaultMode: 0o600, items: [{ key: 'a', path: 'conf/a.txt' }, { key: 'b', path: 'b', mode: 0o640 }] } }]);
      expect(await h.files(dirOf('configmap', 'cfg'))).toEqual({ 'conf/a.txt': { text: '1', mode: 0o600 }, b: { text: '2', mode: 0o640 } });
    });

    it('secret: values base64-decoded, defaultMode honoured', async () => {
      secrets.set('default/db', { metadata: { name: 'db', namespace: 'default' }, data: { password: b64('s3cret') } });
      await setUp([{ name: 'db', secret: { secretName: 'db', defaultMode: 0o400 } }]);
      expect(await h.files(dirOf('secret', 'db'))).toEqual({ password: { text: 's3cret', mode: 0o400 } });
    });

    it.each<[string, Volume, string]>([
      ['a missing ConfigMap', { name: 'cfg', configMap: { name: 'nope' } }, 'MountVolume.SetUp failed for volume "cfg" : configmap "nope" not found'],
      ['a missing Secret', { name: 's', secret: { secretName: 'nope' } }, 'MountVolume.SetUp failed for volume "s" : secret "nope" not found'],
      ['a missing key', { name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'zzz', path: 'z' }] } }, 'MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: zzz'],
      ['a claim the edge cannot read', { name: 'data', persistentVolumeClaim: { claimName: 'gone' } }, 'MountVolume.SetUp failed for volume "data" : persistentvolumeclaim "gone" not found'],
      ['a Directory that is not there', { name: 'h', hostPath: { path: '/srv/none', type: 'Directory' } }, 'MountVolume.SetUp failed for volume "h" : hostPath type check failed: /srv/none is not a directory'],
    ])('%s: not ready, with kube\'s message', async (_what, volume, message) => {
      putConfigMap('cfg', { a: '1' });
      expect(await setUp([volume])).toMatchObject({ ready: false, error: message });
    });

    it('optional: a missing object makes an empty volume, a missing item is skipped', async () => {
      putConfigMap('cfg', { a: '1' });
      const result = await setUp([
        { name: 'none', configMap: { name: 'nope', optional: true } },
        { name: 'some', configMap: { name: 'cfg', optional: true, items: [{ key: 'a', path: 'a' }, { key: 'zzz', path: 'z' }] } },
      ]);
      expect(result.ready).toBe(true);
      expect(await h.files(dirOf('configmap', 'none'))).toEqual({});
      expect(await h.files(dirOf('configmap', 'some'))).toEqual({ a: { text: '1', mode: 0o644 } });
    });

    it('follows the ConfigMap on every set-up, and writes nothing when it did not change', async () => {
      putConfigMap('cfg', { mode: 'fast', old: 'x' });
      const vols: Volume[] = [{ name: 'cfg', configMap: { name: 'cfg' } }];
      await setUp(vols);
      const first = await h.version(dirOf('configmap', 'cfg'));
      await setUp(vols);
      expect(await h.version(dirOf('configmap', 'cfg'))).toBe(first);
      putConfigMap('cfg', { mode: 'slow' });
      await setUp(vols);
      expect(await h.version(dirOf('configmap', 'cfg'))).not.toBe(first);
      expect(await h.files(dirOf('configmap', 'cfg'))).toEqual({ mode: { text: 'slow', mode: 0o644 } });
      configMaps.clear(); // gone after it was mounted: it keeps what it held
      expect((await setUp(vols)).ready).toBe(true);
      expect(await h.files(dirOf('configmap', 'cfg'))).toEqual({ mode: { text: 'slow', mode: 0o644 } });
    });

    it('downwardAPI: fields, labels and annotations as sorted key="value" lines, a container\'s resources', async () => {
      await setUp([{ name: 'info', downwardAPI: { items: [
        { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
        { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
        { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
        { path: 'tier', fieldRef: { fieldPath: "metadata.labels['tier']" } },
        { path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
        { path: 'mem', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' }, mode: 0o600 },
      ] } }]);
      expect(await h.files(dirOf('downward-api', 'info'))).toEqual({
        name: { text: 'web', mode: 0o644 }, labels: { text: 'app="web"\ntier="front"', mode: 0o644 }, annotations: { text: 'note="say \\"hi\\""', mode: 0o644 },
        tier: { text: 'front', mode: 0o644 }, cpu: { text: '250', mode: 0o644 }, mem: { text: '64', mode: 0o600 },
      });
    });

    it('projected: configMap, secret and downwardAPI sources in one volume; a serviceAccountToken is skipped', async () => {
      putConfigMap('cfg', { a: '1' });
      secrets.set('default/db', { metadata: { name: 'db', namespace: 'default' }, data: { pw: b64('x') } });
      await setUp([{ name: 'all', projected: { defaultMode: 0o640, sources: [
        { configMap: { name: 'cfg' } }, { secret: { name: 'db', items: [{ key: 'pw', path: 'secret/pw' }] } },
        { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }, { serviceAccountToken: { path: 'token' } },
      ] } }]);
      expect(await h.files(dirOf('projected', 'all'))).toEqual({ a: { text: '1', mode: 0o640 }, 'secret/pw': { text: 'x', mode: 0o640 }, ns: { text: 'default', mode: 0o640 } });
    });

    it('emptyDir (Memory too) is a directory of the pod\'s', async () => {
      const result = await setUp([{ name: 'scratch', emptyDir: {} }, { name: 'fast', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } }]);
      expect(result.paths.get('scratch')).toBe(dirOf('empty-dir', 'scratch'));
      expect(result.paths.get('fast')).toBe(dirOf('empty-dir', 'fast'));
    });

    it('hostPath: under the host root; *OrCreate make what is missing, the others check', async () => {
      await h.seedHost('/srv/data', 'dir');
      await h.seedHost('/srv/file', 'file');
      const result = await setUp([
        { name: 'made', hostPath: { path: '/var/made', type: 'DirectoryOrCreate' } },
        { name: 'file', hostPath: { path: '/var/log/app.log', type: 'FileOrCreate' } },
        { name: 'dir', hostPath: { path: '/srv/data', type: 'Directory' } },
        { name: 'f', hostPath: { path: '/srv/file', type: 'File' } },
        { name: 'climb', hostPath: { path: '/../../escape' } },
      ]);
      expect(result).toMatchObject({ ready: true });
      expect(result.paths.get('made')).toBe(`${h.hostRoot}/var/made`);
      expect(result.paths.get('climb')).toBe(`${h.hostRoot}/escape`);
      expect(await h.hostKind('/var/made')).toBe('dir');
      expect(await h.hostKind('/var/log/app.log')).toBe('file');
      expect((await setUp([{ name: 'x', hostPath: { path: '/srv/data', type: 'File' } }])).error).toMatch(/hostPath type check failed: \/srv\/data is not a file$/);
    });

    it('persistentVolumeClaim: the bound volume\'s path under the host root; unbound, not ready', async () => {
      claims!.set('default/data', { metadata: { name: 'data' }, spec: { volumeName: 'pvc-1' }, status: { phase: 'Bound' } });
      claims!.set('default/waiting', { metadata: { name: 'waiting' }, spec: {}, status: { phase: 'Pending' } });
      volumes.set('pvc-1', { metadata: { name: 'pvc-1' }, spec: { hostPath: { path: '/opt/local-path/pvc-1', type: 'DirectoryOrCreate' } } });
      expect((await setUp([{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }])).paths.get('d')).toBe(`${h.hostRoot}/opt/local-path/pvc-1`);
      expect(await h.hostKind('/opt/local-path/pvc-1')).toBe('dir');
      expect((await setUp([{ name: 'w', persistentVolumeClaim: { claimName: 'waiting' } }])).ready).toBe(false);
    });

    it('mounts reach the runtime: the container reports them and reads its files at mountPath', async () => {
      putConfigMap('cfg', { mode: 'fast' });
      const pod = podWith([{ name: 'cfg', configMap: { name: 'cfg' } }, { name: 'scratch', emptyDir: {} }]);
      const container = { name: 'app', volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }, { name: 'cfg', mountPath: '/etc/mode', subPath: 'mode' }, { name: 'scratch', mountPath: '/tmp' }] };
      const { paths } = await manager.setUpPod(pod, objects);
      const sandbox = await h.runtime.runSandbox({ podUid: 'uid-1', name: 'web', namespace: 'default', runtimeHandler: h.handler });
      const mounts = containerMounts(container, paths);
      const id = await h.runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, mounts });
      expect((await h.runtime.listContainers()).find((c) => c.id === id)?.mounts).toEqual(mounts);
      expect(await h.readInContainer(id, '/etc/cfg/mode')).toBe('fast');
      expect(await h.readInContainer(id, '/etc/mode')).toBe('fast');
      putConfigMap('cfg', { mode: 'slow' });
      await manager.setUpPod(pod, objects);
      expect(await h.readInContainer(id, '/etc/cfg/mode')).toBe('slow');
      await h.runtime.removeContainer(id);
      await h.runtime.removeSandbox(sandbox.id);
    });

    it('removes every volume of a pod that is gone, and only those', async () => {
      putConfigMap('cfg', { a: '1' });
      await manager.setUpPod(podWith([{ name: 'cfg', configMap: { name: 'cfg' } }], 'gone'), objects);
      await manager.setUpPod(podWith([{ name: 'cfg', configMap: { name: 'cfg' } }], 'kept'), objects);
      expect((await h.host.podUids()).sort()).toEqual(['gone', 'kept']);
      await manager.cleanUp(new Set(['kept']));
      await manager.cleanUp(new Set(['kept'])); // idempotent
      expect(await h.host.podUids()).toEqual(['kept']);
      expect(await h.files(dirOf('configmap', 'cfg', 'gone'))).toEqual({});
      expect(await h.files(dirOf('configmap', 'cfg', 'kept'))).toEqual({ a: { text: '1', mode: 0o644 } });
    });
  });
}
