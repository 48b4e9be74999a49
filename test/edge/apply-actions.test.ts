import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPodActions, type ApplyContext } from '../../edge/edged/apply-actions.js';
import type { PodAction } from '../../edge/edged/plan-pods.js';
import { stopGraceMs } from '../../edge/edged/stop-grace.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { pod } from './fixtures.js';
import { testNetwork } from '../support/test-network.js';

describe('stopGraceMs', () => {
  const deleting = (p: Pod, grace: number): Pod => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: grace } });
  const scale = (timeScale: number) => ({ timeScale });

  it.each([
    ['no terminationGracePeriodSeconds: 30 s', pod('p', 'u1'), 1, 30_000],
    ['terminationGracePeriodSeconds', pod('p', 'u1', { terminationGracePeriodSeconds: 10 }), 1, 10_000],
    ['divided by the time scale', pod('p', 'u1', { terminationGracePeriodSeconds: 10 }), 20, 500],
    ['a deletion grace period wins over the spec', deleting(pod('p', 'u1', { terminationGracePeriodSeconds: 60 }), 5), 1, 5000],
    ['never under 2 s', pod('p', 'u1', { terminationGracePeriodSeconds: 0 }), 1, 2000],
    ['a pod no longer held was deleted outright: 2 s', undefined, 4, 500],
  ])('%s', (_what, p, timeScale, ms) => expect(stopGraceMs(p, scale(timeScale))).toBe(ms));

  it("a failed probe's own grace period wins over the spec, not over a deletion", () => {
    const probe = { terminationGracePeriodSeconds: 7 };
    expect(stopGraceMs(pod('p', 'u1', { terminationGracePeriodSeconds: 60 }), scale(1), probe)).toBe(7000);
    expect(stopGraceMs(deleting(pod('p', 'u1'), 3), scale(1), probe)).toBe(3000);
  });
});

describe('applyPodActions', () => {
  let dir: string;
  let runtime: SimRuntime;
  const logger = memoryLogger();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-apply-'));
    runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock(), defaultStartMs: 0 });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const context = (pods: Pod[]): ApplyContext => ({ hostIP: '192.168.1.20', timing: { timeScale: 10 }, pods });
  const actual = async () => ({ sandboxes: await runtime.listSandboxes(), containers: await runtime.listContainers() });
  async function run(p: Pod) {
    const actions: PodAction[] = [{ type: 'runSandbox', pod: p }, ...p.spec.containers.map((container) => ({ type: 'startContainer' as const, pod: p, container, attempt: 0 }))];
    await applyPodActions(runtime, actions, await actual(), logger, context([p]));
  }

  it("starts a container with its env resolved against the new sandbox's IP and the node's", async () => {
    const create = vi.spyOn(runtime, 'createContainer');
    const env = [
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
    ];
    await run(pod('web', 'u1', { containers: [{ name: 'app', env, args: ['--listen=$(POD_IP)'] }] }));
    const [sandbox] = await runtime.listSandboxes();
    expect(create).toHaveBeenCalledWith(sandbox!.id, expect.objectContaining({ env: { POD_IP: sandbox!.ip, HOST_IP: '192.168.1.20' }, args: [`--listen=${sandbox!.ip}`] }));
  });

  it('creates no container whose env names a missing Secret, and says why (CreateContainerConfigError)', async () => {
    const results: [string, string, string | undefined][] = [];
    const p = pod('web', 'u1', { containers: [{ name: 'app', env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }] }] });
    const actions: PodAction[] = [{ type: 'runSandbox', pod: p }, { type: 'startContainer', pod: p, container: p.spec.containers[0]!, attempt: 0 }];
    await applyPodActions(runtime, actions, await actual(), logger, { ...context([p]), onConfigResult: (...r) => results.push(r) });
    expect(await runtime.listContainers()).toEqual([]);
    expect(results).toEqual([['u1', 'app', 'secret "db" not found']]);
  });

  it("stops a killed pod's containers with its grace period, time-scaled; a deleted pod's with the deletion's", async () => {
    const stop = vi.spyOn(runtime, 'stopContainer');
    const kept = pod('a', 'u1', { terminationGracePeriodSeconds: 40 });
    const deleted = pod('b', 'u2', { terminationGracePeriodSeconds: 40 });
    deleted.metadata = { ...deleted.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 6 };
    const gone = pod('c', 'u3');
    for (const p of [kept, deleted, gone]) await run(p);
    const now = await actual();
    const kill = (podUid: string): PodAction => {
      const sandboxId = now.sandboxes.find((s) => s.podUid === podUid)!.id;
      return { type: 'killPod', podUid, sandboxId, containerIds: now.containers.filter((c) => c.podUid === podUid).map((c) => c.id), reason: 'test' };
    };
    const containerOf = (podUid: string) => now.containers.find((c) => c.podUid === podUid)!.id;
    await applyPodActions(runtime, [kill('u1'), kill('u2'), kill('u3')], now, logger, context([kept, deleted]));
    expect(stop.mock.calls.sort()).toEqual(
      [
        [containerOf('u1'), 4000],
        [containerOf('u2'), 600],
        [containerOf('u3'), 200],
      ].sort(),
    );
  });

  it('stops a removed container with its pod grace period too', async () => {
    const stop = vi.spyOn(runtime, 'stopContainer');
    const p = pod('a', 'u1', { terminationGracePeriodSeconds: 90 });
    await run(p);
    const now = await actual();
    await applyPodActions(runtime, [{ type: 'removeContainer', containerId: now.containers[0]!.id, reason: 'test' }], now, logger, context([p]));
    expect(stop).toHaveBeenCalledWith(now.containers[0]!.id, 9000);
  });

  it("stops a killed pod's containers all at once, so the pod takes one grace period", async () => {
    const p = pod('two', 'u1', { containers: [{ name: 'a' }, { name: 'b' }] });
    await run(p);
    const now = await actual();
    const stopping: string[] = [];
    let release = (): void => {};
    const bothAsked = new Promise<void>((resolve) => (release = resolve));
    vi.spyOn(runtime, 'stopContainer').mockImplementation(async (id) => {
      stopping.push(id);
      if (stopping.length === 2) release();
      await bothAsked; // a stop that waits for the other one: one after another never ends
    });
    const kill: PodAction = { type: 'killPod', podUid: 'u1', sandboxId: now.sandboxes[0]!.id, containerIds: now.containers.map((c) => c.id), reason: 'test' };
    await applyPodActions(runtime, [kill], now, logger, context([p]));
    expect(stopping.sort()).toEqual(now.containers.map((c) => c.id).sort());
    expect(await runtime.listSandboxes()).toEqual([]);
  });
});
