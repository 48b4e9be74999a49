import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Edged } from '../../edge/edged/edged.js';
import { createMemoryCache, podsIn, type LocalCache } from '../../edge/metamanager/local-cache.js';
import type { NetworkPlugin } from '../../edge/network/cni/network-plugin.js';
import { cachedPodCIDR } from '../../edge/network/cni/node-pod-cidr.js';
import { memoryNetworkPlugin } from '../../edge/network/cni/plugins.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { pod } from './fixtures.js';

const timing = { ...defaultTiming, syncIntervalMs: 1000, containerStartMs: 200 };
const NOT_READY = 'network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:';

describe('edged and the network plugin', () => {
  let dir: string;
  let clock: FakeClock;
  let cache: LocalCache;
  let network: NetworkPlugin;
  let runtime: SimRuntime;
  let edged: Edged;
  let onQueued: (() => void) | undefined;
  const changes = new Subject<void>();

  const hold = (p: Pod) => {
    const { name = '', uid = '' } = p.metadata;
    cache.apply({ kind: 'Pod', name, namespace: 'default', uid, resourceVersion: '1' }, p);
    changes.next();
  };
  /** The node's own Node as the cloud syncs it, with its podCIDR. */
  const holdNode = (podCIDR: string, resourceVersion = '1') => {
    cache.apply({ kind: 'Node', name: 'edge-1', uid: 'node-uid', resourceVersion }, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1', uid: 'node-uid', resourceVersion }, spec: { podCIDR, podCIDRs: [podCIDR] } });
    changes.next();
  };
  const tick = async (ms: number) => {
    await clock.advance(ms);
    await edged.sync();
  };
  const statusOf = (name: string) => podsIn(cache).find((p) => p.metadata.name === name)!.status!;
  const nextQueued = () => new Promise<void>((resolve) => (onQueued = resolve));

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edged-cni-'));
    clock = new FakeClock();
    cache = createMemoryCache();
    network = memoryNetworkPlugin({ nodeName: 'edge-1', podCIDR: cachedPodCIDR(cache, 'edge-1'), clock });
    runtime = await SimRuntime.open({ network, hostIp: '192.168.1.20', dataDir: dir, clock, defaultStartMs: timing.containerStartMs });
    edged = new Edged({ cache, runtime, network, clock, timing, logger: silentLogger, hostIP: '192.168.1.20', onStatusQueued: () => onQueued?.() });
    edged.start(changes);
  });
  afterEach(async () => {
    await edged.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates no sandbox while the node has no podCIDR: the pod waits in ContainerCreating with the reason; it starts once the Node brings one', async () => {
    hold(pod('web', 'u1'));
    await tick(timing.syncIntervalMs * 3);
    expect(await runtime.listSandboxes()).toEqual([]);
    expect(statusOf('web').phase).toBe('Pending');
    expect(statusOf('web').podIP).toBeUndefined();
    expect(statusOf('web').containerStatuses![0]!.state).toEqual({ waiting: { reason: 'ContainerCreating', message: `${NOT_READY}no podCIDR assigned to node edge-1 yet` } });

    holdNode('10.1.0.0/24');
    await edged.sync();
    await tick(timing.containerStartMs);
    expect(statusOf('web')).toMatchObject({ phase: 'Running', podIP: '10.1.0.2', podIPs: [{ ip: '10.1.0.2' }] });
    expect(statusOf('web').containerStatuses![0]!.state.waiting).toBeUndefined();
  });

  it('stopped: new pods wait with "kedge-cni is stopped", running pods keep their address, hostNetwork pods start; starting it lets them go at once', async () => {
    holdNode('10.1.0.0/24');
    hold(pod('running', 'u1'));
    await tick(timing.syncIntervalMs);
    await tick(timing.containerStartMs);
    expect(statusOf('running')).toMatchObject({ phase: 'Running', podIP: '10.1.0.2' });

    await network.stop();
    hold(pod('new', 'u2'));
    hold(pod('host', 'u3', { hostNetwork: true }));
    await tick(timing.syncIntervalMs * 5);
    await tick(timing.containerStartMs);
    expect(statusOf('new').containerStatuses![0]!.state).toEqual({ waiting: { reason: 'ContainerCreating', message: `${NOT_READY}kedge-cni is stopped` } });
    expect(statusOf('running')).toMatchObject({ phase: 'Running', podIP: '10.1.0.2' });
    expect(statusOf('host')).toMatchObject({ phase: 'Running', podIP: '192.168.1.20' });
    expect((await runtime.listSandboxes()).map((s) => s.podUid).sort()).toEqual(['u1', 'u3']);

    const queued = nextQueued();
    await network.start(); // no tick, no cache change: the plugin's own signal
    await queued;
    expect((await runtime.listSandboxes()).find((s) => s.podUid === 'u2')?.ip).toBe('10.1.0.3');
    expect(statusOf('new').containerStatuses![0]!.state).toEqual({ waiting: { reason: 'ContainerCreating' } });
  }, 5_000); // without the plugin's signal, `queued` never resolves

  it('deleting a pod releases its address while the plugin is stopped (DEL), and a restarted container keeps its sandbox', async () => {
    holdNode('10.1.0.0/24');
    hold(pod('crashy', 'u1', {}, { 'kedge.io/start-delay': '0s', 'kedge.io/crash-after': '1500ms' }));
    hold(pod('gone', 'u2'));
    await tick(timing.syncIntervalMs);
    const crashy = statusOf('crashy');
    const goneSandbox = (await runtime.listSandboxes()).find((s) => s.podUid === 'u2')!;
    await network.stop();
    cache.delete({ kind: 'Pod', name: 'gone', namespace: 'default', uid: 'u2' });
    changes.next();
    await tick(timing.syncIntervalMs * 15);
    expect(statusOf('crashy')).toMatchObject({ podIP: crashy.podIP });
    expect(statusOf('crashy').containerStatuses![0]!.restartCount).toBeGreaterThan(0);
    await expect(network.check({ containerId: (await runtime.listSandboxes()).find((s) => s.podUid === 'u1')!.id })).resolves.toMatchObject({ ip: crashy.podIP });
    expect((await runtime.listSandboxes()).map((s) => s.podUid)).toEqual(['u1']);
    await expect(network.check({ containerId: goneSandbox.id })).rejects.toMatchObject({ code: 'NotFound' });
  });
});
