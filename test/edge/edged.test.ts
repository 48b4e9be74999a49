import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Edged } from '../../edge/edged/edged.js';
import { createMemoryCache, podsIn, type LocalCache } from '../../edge/metamanager/local-cache.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { pod } from './fixtures.js';
import { testNetwork } from '../support/test-network.js';

const timing = { ...defaultTiming, syncIntervalMs: 1000, containerStartMs: 200 };

describe('Edged with the sim runtime', () => {
  let dir: string;
  let clock: FakeClock;
  let cache: LocalCache;
  let edged: Edged | undefined;
  let queued: number;
  let onQueued: (() => void) | undefined;
  const changes = new Subject<void>();

  const run = async (reboot = false): Promise<SimRuntime> => {
    await edged?.stop();
    const runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: timing.containerStartMs, reboot });
    edged = new Edged({ cache, runtime, clock, timing, logger: silentLogger, hostIP: '127.0.0.1', onStatusQueued: () => {
        queued++;
        onQueued?.();
      },
    });
    edged.start(changes);
    await edged.sync();
    return runtime;
  };
  const hold = (p: Pod) => {
    const { name = '', namespace, uid = '', resourceVersion } = p.metadata;
    cache.apply({ kind: 'Pod', name, uid, ...(namespace ? { namespace } : {}), ...(resourceVersion ? { resourceVersion } : {}) }, p);
    changes.next();
  };
  /** Moves the clock, then waits for a sync after it (runtime state is written to real files). */
  const tick = async (ms: number) => {
    await clock.advance(ms);
    await edged!.sync();
  };
  const status = () => podsIn(cache)[0]!.status!;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edged-'));
    clock = new FakeClock();
    cache = createMemoryCache();
    queued = 0;
    onQueued = undefined;
    edged = undefined;
  });
  afterEach(async () => {
    await edged?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts a cached pod, reports Pending then Running, and queues only changes', async () => {
    await run();
    hold(pod('web', 'u1'));
    await edged!.sync();
    expect(status().phase).toBe('Pending');
    await tick(timing.syncIntervalMs);
    expect(status().phase).toBe('Running');
    const outboxVersion = cache.outbox()[0]!.version;
    await tick(timing.syncIntervalMs * 5);
    expect(cache.outbox()[0]!.version).toBe(outboxVersion);
    expect(queued).toBe(2);
  });

  it('looks again the moment a starting container runs, not on a later tick', async () => {
    await run();
    hold(pod('web', 'u1', {}, { 'kedge.io/start-delay': '250ms' }));
    await edged!.sync();
    expect(status().phase).toBe('Pending');
    const requeued = new Promise<void>((resolve) => (onQueued = resolve));
    await clock.advance(249);
    expect(status().phase).toBe('Pending');
    await clock.advance(1); // no sync asked for: the follow-up edged set for this moment does it
    await requeued;
    expect(status().containerStatuses![0]!.state.running?.startedAt).toBe(new Date(clock.now()).toISOString());
    expect(status().phase).toBe('Running');
  }, 5_000); // without that follow-up, `requeued` never resolves

  it('looks again at once when a container comes up while the runtime is being listed', async () => {
    const runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: timing.containerStartMs });
    let slowList = false;
    // A listing that takes 1 ms: what it returns is as of its start.
    const slow = new Proxy(runtime, {
      get(target, prop) {
        if (prop === 'listContainers') {
          return async () => {
            const list = await target.listContainers();
            if (slowList) {
              slowList = false;
              await clock.sleep(1);
            }
            return list;
          };
        }
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    edged = new Edged({ cache, runtime: slow, clock, timing, logger: silentLogger, hostIP: '127.0.0.1', onStatusQueued: () => onQueued?.() });
    hold(pod('a', 'u1', {}, { 'kedge.io/start-delay': '250ms' }));
    hold(pod('b', 'u2', {}, { 'kedge.io/start-delay': '251ms' }));
    edged.start(changes);
    await edged.sync();
    const phaseOf = (name: string) => podsIn(cache).find((p) => p.metadata.name === name)!.status?.phase;
    slowList = true;
    await clock.advance(250); // a's follow-up sync starts listing; b comes up while it does
    await clock.advance(1);
    expect([phaseOf('a'), phaseOf('b')]).toEqual(['Running', 'Pending']);
    const requeued = new Promise<void>((resolve) => (onQueued = resolve));
    await clock.advance(1); // no sync asked for: the follow-up edged set does it
    await requeued;
    expect(phaseOf('b')).toBe('Running');
  }, 5_000); // without that follow-up (b would show Running 100 ms later), `requeued` never resolves

  it('restarts a crashed container under restartPolicy Always, with lastState', async () => {
    await run();
    hold(pod('crashy', 'u1', {}, { 'kedge.io/start-delay': '0s', 'kedge.io/crash-after': '1500ms', 'kedge.io/exit-code': '2' }));
    await edged!.sync();
    await tick(2000); // crashed at 1.5 s: run again at once, as the kubelet does a first time
    expect(status().containerStatuses![0]).toMatchObject({ restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 2, reason: 'Error' } } });
    await tick(2000); // crashed again by 3.5 s: it waits out its 10 s back-off
    expect(status().containerStatuses![0]).toMatchObject({ restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } });
    await tick(10_000); // restarted 10 s after that
    const c = status().containerStatuses![0]!;
    expect(c.restartCount).toBe(2);
    expect(c.lastState.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
  });

  it('leaves a failed container down under restartPolicy Never: phase Failed', async () => {
    await run();
    hold(pod('once', 'u1', { restartPolicy: 'Never' }, { 'kedge.io/start-delay': '0s', 'kedge.io/crash-after': '1s' }));
    await edged!.sync();
    await tick(3000);
    expect(status().phase).toBe('Failed');
    expect(status().containerStatuses![0]!.restartCount).toBe(0);
  });

  it('adopts running containers after a restart; a reboot starts them again', async () => {
    const first = await run();
    hold(pod('web', 'u1'));
    await edged!.sync();
    await tick(timing.syncIntervalMs);
    const [before] = await first.listContainers();
    const adopted = await run();
    expect(await adopted.listContainers()).toEqual([before]);
    const rebooted = await run(true);
    const [after] = await rebooted.listContainers();
    expect(after?.id).not.toBe(before?.id);
    // The runtime forgot the old container, but the count goes on from the cached status.
    expect(after?.attempt).toBe(1);
    expect(status().containerStatuses![0]).toMatchObject({
      restartCount: 1,
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: { terminated: { exitCode: 255, reason: 'Unknown' } },
    });
    await tick(timing.syncIntervalMs);
    expect(status().containerStatuses![0]).toMatchObject({ restartCount: 1, state: { running: {} }, lastState: { terminated: { reason: 'Unknown' } } });
  });

  it('stops and removes a pod that is no longer cached', async () => {
    const runtime = await run();
    hold(pod('web', 'u1'));
    await edged!.sync();
    cache.delete({ kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1' });
    changes.next();
    await edged!.sync();
    expect(await runtime.listSandboxes()).toEqual([]);
    expect(await runtime.listContainers()).toEqual([]);
  });
});
