import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Edged } from '../../edge/edged/edged.js';
import { createMemoryCache, type LocalCache } from '../../edge/metamanager/local-cache.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { MemoryVolumeHost } from '../../edge/volumes/memory-volume-host.js';
import { FakeClock } from '../../shared/clock.js';
import type { ConfigMap } from '../../shared/config-types.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { KubeObject, Pod } from '../../shared/types.js';
import { holdIn, pod } from './fixtures.js';
import { testNetwork } from '../support/test-network.js';

const timing = { ...defaultTiming, syncIntervalMs: 1000, containerStartMs: 200 };

/** edged with ConfigMaps in its cache: env and volumes from them, waiting while one is missing. */
describe('Edged: env and volumes from ConfigMaps', () => {
  let dir: string;
  let clock: FakeClock;
  let cache: LocalCache;
  let runtime: SimRuntime;
  let edged: Edged | undefined;
  let host: MemoryVolumeHost;
  const changes = new Subject<void>();

  const hold = (o: KubeObject & { kind: string }) => {
    holdIn(cache, o);
    changes.next();
  };
  const settings = (mode: string, rv: string): ConfigMap & { kind: string } => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default', uid: 'cm-1', resourceVersion: rv }, data: { mode } });
  const tick = async (ms: number) => {
    await clock.advance(ms);
    await edged!.sync();
  };
  const podStatus = () => cache.objects().find((o) => o.kind === 'Pod')!.object.status!;
  const container = () => podStatus().containerStatuses![0]!;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edged-cm-'));
    clock = new FakeClock();
    cache = createMemoryCache();
    runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: timing.containerStartMs });
    host = new MemoryVolumeHost({ dataDir: dir, hostRoot: join(dir, 'host') });
    edged = new Edged({ cache, runtime, clock, timing, logger: silentLogger, hostIP: '127.0.0.1', onStatusQueued: () => {}, volumeHosts: { hostFor: () => host, hosts: [host] } });
    edged.start(changes);
    await edged.sync();
  });
  afterEach(async () => {
    await edged?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('waits in CreateContainerConfigError while the ConfigMap is missing, then starts with its value', async () => {
    const web: Pod = pod('web', 'u1', { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }] }] });
    hold({ ...web, kind: 'Pod' });
    await edged!.sync();
    expect(container().state).toEqual({ waiting: { reason: 'CreateContainerConfigError', message: 'configmap "settings" not found' } });
    expect(podStatus().phase).toBe('Pending');
    expect(await runtime.listContainers()).toEqual([]);

    await tick(timing.syncIntervalMs);
    expect(container().state.waiting?.reason).toBe('CreateContainerConfigError');

    hold(settings('fast', '5'));
    await edged!.sync();
    await tick(timing.syncIntervalMs);
    expect(container().state.running).toBeDefined();
    expect(podStatus().phase).toBe('Running');
    const [created] = await runtime.listContainers();
    expect(created!.state).toBe('running');
  });

  it('says which key is missing, as kube does', async () => {
    hold(settings('fast', '5'));
    hold({ ...pod('web', 'u1', { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'level' } } }] }] }), kind: 'Pod' });
    await edged!.sync();
    expect(container().state.waiting).toEqual({ reason: 'CreateContainerConfigError', message: "couldn't find key level in ConfigMap default/settings" });
  });

  it('keeps a pod whose configMap volume is missing in ContainerCreating, then mounts it and follows its changes', async () => {
    const web = pod('web', 'u1', {
      volumes: [{ name: 'cfg', configMap: { name: 'settings' } }],
      containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }] }],
    });
    hold({ ...web, kind: 'Pod' });
    await edged!.sync();
    expect(container().state.waiting).toEqual({ reason: 'ContainerCreating', message: 'MountVolume.SetUp failed for volume "cfg" : configmap "settings" not found' });
    expect(await runtime.listSandboxes()).toEqual([]);

    hold(settings('fast', '5'));
    await edged!.sync();
    await tick(timing.syncIntervalMs);
    expect(container().state.running).toBeDefined();
    expect(container().volumeMounts).toEqual([{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }]);
    const volume = join(dir, 'pods', 'u1', 'volumes', 'kubernetes.io~configmap', 'cfg');
    const [created] = await runtime.listContainers();
    expect(created!.mounts).toEqual([{ name: 'cfg', containerPath: '/etc/cfg', hostPath: volume, readOnly: true }]);
    const text = () => host.filesAt(volume).map((f) => `${f.path}=${f.content.toString()}`);
    expect(text()).toEqual(['mode=fast']);

    hold(settings('slow', '6'));
    await edged!.sync();
    expect(text()).toEqual(['mode=slow']);
    await tick(timing.syncIntervalMs * 3);
    expect(host.writesAt(volume)).toBe(2); // unchanged payload: nothing written again

    cache.delete({ kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1' });
    changes.next();
    await edged!.sync();
    await edged!.sync();
    expect(await host.podUids()).toEqual([]);
  });
});
