import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Edged } from '../../../edge/edged/edged.js';
import { simulatedImageSize } from '../../../edge/edged/image-pulls.js';
import { MemoryEventOutbox } from '../../../edge/events/event-outbox.js';
import { EdgeEventRecorder } from '../../../edge/events/event-recorder.js';
import { createMemoryCache, type LocalCache } from '../../../edge/metamanager/local-cache.js';
import type { ProbeKind } from '../../../edge/runtime/runtime.js';
import { SimRuntime } from '../../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { Pod } from '../../../shared/types.js';
import { testNetwork } from '../../support/test-network.js';
import { passSyncing } from '../../support/settle.js';
import { pod } from '../fixtures.js';

const timing = { ...defaultTiming, syncIntervalMs: 1000, containerStartMs: 200 };
const S = 1000;

describe('the kubelet events edged records', () => {
  let dir: string;
  let clock: FakeClock;
  let cache: LocalCache;
  let outbox: MemoryEventOutbox;
  let edged: Edged | undefined;
  let answers: Map<ProbeKind, boolean>;
  const changes = new Subject<void>();

  let sandboxError: string | undefined;
  const start = async (...pods: Pod[]): Promise<void> => {
    const runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: timing.containerStartMs });
    runtime.simulatedProbe = async (_id, kind) => answers.get(kind) ?? true;
    const runSandbox = runtime.runSandbox.bind(runtime);
    runtime.runSandbox = (config) => (sandboxError ? Promise.reject(new Error(sandboxError)) : runSandbox(config));
    const events = new EdgeEventRecorder({ outbox, clock, logger: silentLogger });
    edged = new Edged({ cache, runtime, clock, timing, logger: silentLogger, hostIP: '127.0.0.1', onStatusQueued: () => {}, events });
    edged.start(changes);
    for (const p of pods) cache.apply({ kind: 'Pod', name: p.metadata.name!, namespace: 'default', uid: p.metadata.uid!, resourceVersion: '1' }, p);
    changes.next();
    await edged.sync();
  };
  const tick = (ms: number) => passSyncing(clock, () => edged!.sync(), ms);
  /** The events, in the order they first happened: `Reason: message`, with `(xN)` for a count above 1. */
  const told = (uid?: string) =>
    outbox.entries().filter((e) => !uid || e.event.involvedObject.uid === uid).map(({ event: e }) => `${e.reason}: ${e.message}${e.count > 1 ? ` (x${e.count})` : ''}`);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edged-events-'));
    clock = new FakeClock();
    cache = createMemoryCache();
    outbox = new MemoryEventOutbox();
    answers = new Map();
    sandboxError = undefined;
    edged = undefined;
  });
  afterEach(async () => {
    await edged?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a pod start: Pulling, Pulled, Created, Started, about the container', async () => {
    await start(pod('web', 'u1', { containers: [{ name: 'c1', image: 'nginx' }] }));
    await tick(S);
    const size = simulatedImageSize('nginx');
    expect(told()).toEqual([
      'Pulling: Pulling image "nginx"',
      `Pulled: Successfully pulled image "nginx" in 0s (0s including waiting). Image size: ${size} bytes.`,
      'Created: Created container: c1',
      'Started: Started container c1',
    ]);
    expect(outbox.entries().every((e) => e.event.involvedObject.fieldPath === 'spec.containers{c1}' && e.event.type === 'Normal')).toBe(true);
  });

  it('a pull takes kedge.io/image-pull-delay; an IfNotPresent image the node has is already present', async () => {
    const slow = pod('slow', 'u1', { containers: [{ name: 'c1', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] }, { 'kedge.io/image-pull-delay': '1.5s' });
    await start(slow);
    await tick(1400);
    expect(told()).toEqual(['Pulling: Pulling image "nginx:1.27"']);
    await tick(300);
    expect(told()).toEqual([
      'Pulling: Pulling image "nginx:1.27"',
      `Pulled: Successfully pulled image "nginx:1.27" in 1.5s (1.5s including waiting). Image size: ${simulatedImageSize('nginx:1.27')} bytes.`,
      'Created: Created container: c1',
      'Started: Started container c1',
    ]);
    const again = pod('again', 'u2', { containers: [{ name: 'c1', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] }, { 'kedge.io/image-pull-delay': '1.5s' });
    cache.apply({ kind: 'Pod', name: 'again', namespace: 'default', uid: 'u2', resourceVersion: '1' }, again);
    changes.next();
    await tick(200);
    expect(told('u2')).toEqual(['Pulled: Container image "nginx:1.27" already present on machine', 'Created: Created container: c1', 'Started: Started container c1']);
  });

  it('a crash loop: BackOff once for each wait, counted', async () => {
    const crashy = pod('crashy', 'u1', { containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] }, { 'kedge.io/crash-after': '1s' });
    await start(crashy);
    await tick(30 * S); // runs at 0.2 s, crashes at 1.2 s, runs again at once, crashes, waits 10 s, runs, crashes, waits 20 s
    expect(told()).toEqual([
      'Pulling: Pulling image "busybox:1.36"',
      expect.stringMatching(/^Pulled: Successfully pulled image "busybox:1.36" in 0s/),
      'Created: Created container: app (x3)',
      'Started: Started container app (x3)',
      'Pulled: Container image "busybox:1.36" already present on machine (x2)',
      'BackOff: Back-off restarting failed container app in pod crashy_default(u1) (x2)',
    ]);
    expect(outbox.entries().find((e) => e.event.reason === 'BackOff')!.event).toMatchObject({ type: 'Warning', involvedObject: { fieldPath: 'spec.containers{app}' } });
  });

  it('a failed liveness probe: Unhealthy for each failure, then Killing', async () => {
    answers.set('liveness', false);
    await start(pod('web', 'u1', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', livenessProbe: { httpGet: { port: 80 }, periodSeconds: 1, failureThreshold: 3 } }] }));
    await tick(8 * S);
    // Killed after three failures, run again at once (its first restart), killed again, then backed off.
    expect(told().slice(4)).toEqual([
      'Unhealthy: Liveness probe failed: the simulated container failed the probe (x6)',
      'Killing: Container app failed liveness probe, will be restarted (x2)',
      'Pulled: Container image "nginx:1.27" already present on machine',
      'BackOff: Back-off restarting failed container app in pod web_default(u1)',
    ]);
  });

  it('a missing configmap: FailedMount once, however many syncs find it missing', async () => {
    await start(pod('web', 'u1', { volumes: [{ name: 'v', configMap: { name: 'x' } }] }));
    await tick(5 * S);
    expect(told()).toEqual(['FailedMount: MountVolume.SetUp failed for volume "v" : configmap "x" not found']);
    expect(outbox.entries()[0]!.event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Pod', name: 'web', uid: 'u1' } });
  });

  it('a sandbox that cannot be created, a container config that cannot be built: told once until they clear', async () => {
    sandboxError = 'no IP addresses available in range set';
    const env = [{ name: 'K', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }];
    await start(pod('web', 'u1', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', env }] }));
    await tick(3 * S);
    expect(told()).toEqual(['FailedCreatePodSandBox: Failed to create pod sandbox: no IP addresses available in range set']);
    sandboxError = undefined;
    await tick(3 * S);
    expect(told().slice(1)).toEqual([
      'Pulling: Pulling image "nginx:1.27"',
      expect.stringMatching(/^Pulled: Successfully pulled image/),
      'Failed: Error: configmap "cfg" not found',
    ]);
  });

  it('a pod deleted: Killing, Stopping container for each running container', async () => {
    const web = pod('web', 'u1', { containers: [{ name: 'a', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }, { name: 'b', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] });
    await start(web);
    await tick(S);
    const deleting: Pod = { ...web, metadata: { ...web.metadata, resourceVersion: '2', deletionTimestamp: new Date(clock.now()).toISOString(), deletionGracePeriodSeconds: 30 } };
    cache.apply({ kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '2' }, deleting);
    changes.next();
    await tick(S);
    const killing = outbox.entries().filter((e) => e.event.reason === 'Killing').map((e) => [e.event.message, e.event.involvedObject.fieldPath]);
    expect(killing).toEqual([['Stopping container a', 'spec.containers{a}'], ['Stopping container b', 'spec.containers{b}']]);
  });
});
