import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../cloud/client/client.js';
import type { RunningController } from '../../../cloud/controllers/controller.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import { nodeLifecycleController } from '../../../cloud/controllers/node-lifecycle/index.js';
import { settle } from '../../../shared/clock.js';
import { isKedgeError } from '../../../shared/errors.js';
import { memoryLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { Node, Pod } from '../../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, pod, type ApiFixture } from '../../support/api-fixture.js';
import { iso, readyCondition, S } from './builders.js';
import { withInformers } from '../../support/controller-context.js';

describe('node lifecycle controller (in-process apiserver, fake clock)', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let controller: RunningController;
  let events: ReturnType<typeof memoryEventRecorder>;
  let logger: ReturnType<typeof memoryLogger>;
  const t0 = (): number => f.clock.now();
  const drain = async (): Promise<void> => {
    for (let i = 0; i < 30; i++) await settle();
  };
  const advance = async (ms: number): Promise<void> => {
    await f.clock.advance(ms);
    await drain();
  };
  const getNode = (name: string) => api.get<Node>({ resource: 'nodes', name });
  /** The pod while it is in service: evicted ones are marked for (graceful) deletion, or gone. */
  const getPod = async (name: string): Promise<Pod | undefined> => {
    try {
      const pod = await api.get<Pod>({ resource: 'pods', namespace: 'default', name });
      return pod.metadata.deletionTimestamp === undefined ? pod : undefined;
    } catch (err) {
      if (isKedgeError(err, 'NotFound')) return undefined;
      throw err;
    }
  };
  const readyOf = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');
  const podReady = (p: Pod | undefined) => p?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  /** What the hub writes when the edge reports: Ready=True with a fresh heartbeat. */
  const report = async (name: string): Promise<void> => {
    const node = await getNode(name);
    await api.replace({ resource: 'nodes', name, subresource: 'status' }, { ...node, status: { conditions: [readyCondition('True', f.clock.now())] } });
  };
  const runningPod = async (name: string, nodeName: string, labels?: Record<string, string>): Promise<void> => {
    const created = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, pod(name, { metadata: { name, labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], nodeName } }));
    const conditions = [{ type: 'Ready', status: 'True' as const }, { type: 'ContainersReady', status: 'True' as const }];
    await api.replace({ resource: 'pods', namespace: 'default', name, subresource: 'status' }, { ...created, status: { phase: 'Running', conditions } });
  };

  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
    events = memoryEventRecorder();
    logger = memoryLogger();
    for (const name of ['edge-1', 'edge-2']) {
      await api.create<Node>({ resource: 'nodes' }, { metadata: { name }, spec: {}, status: {} });
      await report(name);
    }
    await runningPod('web', 'edge-1');
    await runningPod('offline', 'edge-1', { 'app-offline.kubeedge.io': 'autonomy' });
    await runningPod('healthy', 'edge-2');
    controller = await nodeLifecycleController.start(withInformers({ api, clock: f.clock, timing: defaultTiming, logger, events }));
  });
  afterEach(async () => {
    await controller.close();
    expect(f.clock.pending).toBe(0);
  });

  it('marks a silent node Unknown and unreachable, its pods not ready, evicts after 300 s but not autonomous pods, and heals on a heartbeat', async () => {
    const start = t0();
    // edge-2 keeps reporting every 10 s; edge-1 falls silent.
    const stopBeats = f.clock.setRepeating(10 * S, () => void report('edge-2'));

    await advance(40 * S);
    expect(readyOf(await getNode('edge-1'))?.status).toBe('True'); // 40 s: not past the grace period yet
    await advance(5 * S); // the 45 s monitor pass: 45 s > 40 s of silence
    const silent = await getNode('edge-1');
    expect(readyOf(silent)).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: iso(start + 45 * S).replace('.000', '') });
    const taints = silent.spec?.taints ?? [];
    expect(taints.map((t) => `${t.key}:${t.effect}`)).toEqual(['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    const taintedAt = Date.parse(taints[0]!.timeAdded!);
    expect(taintedAt).toBe(start + 45 * S);
    expect(podReady(await getPod('web'))).toBe('False');
    expect(podReady(await getPod('offline'))).toBe('False');
    expect(readyOf(await getNode('edge-2'))?.status).toBe('True');
    expect(podReady(await getPod('healthy'))).toBe('True');
    expect(events.events.map((e) => `${e.about.metadata.name}:${e.reason}`)).toEqual(expect.arrayContaining(['edge-1:NodeNotReady', 'web:NodeNotReady', 'offline:NodeNotReady']));

    // Marked once: later passes leave the pods alone.
    const markedRv = (await getPod('offline'))!.metadata.resourceVersion;
    await advance(60 * S);
    expect((await getPod('offline'))!.metadata.resourceVersion).toBe(markedRv);

    await advance(taintedAt + 300 * S - 1 - t0()); // 299.999 s after the taint
    expect(await getPod('web')).toBeDefined();
    await advance(1);
    expect(await getPod('web')).toBeUndefined();
    expect(await getPod('offline')).toBeDefined(); // app-offline.kubeedge.io=autonomy: tolerates for ever
    expect(await getPod('healthy')).toBeDefined();
    expect(events.events.find((e) => e.reason === 'TaintManagerEviction')).toMatchObject({ message: 'Marking for deletion Pod default/web' });

    await advance(3600 * S);
    expect(await getPod('offline')).toBeDefined();

    await report('edge-1');
    await advance(defaultTiming.nodeMonitorPeriodMs);
    const healed = await getNode('edge-1');
    expect(readyOf(healed)?.status).toBe('True');
    expect(healed.spec?.taints ?? []).toEqual([]);
    expect(events.events.some((e) => e.about.metadata.name === 'edge-1' && e.reason === 'NodeReady')).toBe(true);
    stopBeats();
  });

  it('evicts from an autonomous node at its autonomy duration, not at 300 s', async () => {
    const node = await getNode('edge-1');
    await api.replace({ resource: 'nodes', name: 'edge-1' }, { ...node, metadata: { ...node.metadata, annotations: { 'kedge.io/autonomy-duration': '1h' } } });
    await advance(45 * S);
    const taintedAt = Date.parse((await getNode('edge-1')).spec!.taints![0]!.timeAdded!);
    await advance(taintedAt + 3600 * S - 1 - t0());
    expect(await getPod('web')).toBeDefined();
    await advance(1);
    expect(await getPod('web')).toBeUndefined();
    expect(await getPod('offline')).toBeDefined();
  });

  it('taints a node that reports Ready=False with not-ready, and evicts a pod that does not tolerate it at once', async () => {
    await api.create<Pod>({ resource: 'pods', namespace: 'default' }, pod('strict', { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], nodeName: 'edge-2', tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Equal', value: 'x', effect: 'NoExecute' }] } }));
    const node = await getNode('edge-2');
    await api.replace({ resource: 'nodes', name: 'edge-2', subresource: 'status' }, { ...node, status: { conditions: [{ ...readyCondition('False', t0()), reason: 'KubeletNotReady' }] } });
    await advance(defaultTiming.nodeMonitorPeriodMs);
    expect((await getNode('edge-2')).spec?.taints?.map((t) => `${t.key}:${t.effect}`)).toEqual(['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule']);
    expect(podReady(await getPod('healthy'))).toBe('False');
    expect(await getPod('strict')).toBeUndefined(); // its toleration wants value "x": not tolerated
    expect(await getPod('healthy')).toBeDefined();

    await report('edge-2');
    await advance(defaultTiming.nodeMonitorPeriodMs);
    expect((await getNode('edge-2')).spec?.taints ?? []).toEqual([]);
    expect(events.events.filter((e) => e.reason === 'TaintManagerEviction').map((e) => e.message)).toEqual(['Marking for deletion Pod default/strict', 'Cancelling deletion of Pod default/healthy']);
  });

  it('warns once about an invalid autonomy duration and ignores it', async () => {
    const node = await getNode('edge-1');
    await api.replace({ resource: 'nodes', name: 'edge-1' }, { ...node, metadata: { ...node.metadata, annotations: { 'kedge.io/autonomy-duration': 'a while' } } });
    await advance(45 * S);
    const taintedAt = Date.parse((await getNode('edge-1')).spec!.taints![0]!.timeAdded!);
    await advance(taintedAt + 300 * S - t0());
    expect(await getPod('web')).toBeUndefined();
    expect(logger.lines.filter((l) => l.includes('ignoring invalid autonomy duration'))).toHaveLength(1);
  });

  it('does not mark nodes Unknown for the time the store was down: silence is counted afresh once it is back', async () => {
    const beat = (): void => {
      if (f.gate.isUp) void report('edge-1').catch(() => undefined);
    };
    const stopBeats = f.clock.setRepeating(10 * S, beat);
    await advance(20 * S);
    f.gate.down('the store is down');
    await advance(120 * S); // three times the grace period without a heartbeat written
    f.gate.up();
    for (let waited = 0; waited < 10 * S; waited += S) {
      await advance(S); // the informer lists again, the monitor passes, the next heartbeat comes
      expect(readyOf(await getNode('edge-1'))?.status).toBe('True');
    }
    stopBeats();
    // A node that really falls silent afterwards still goes Unknown after the grace period.
    await advance(50 * S);
    expect(readyOf(await getNode('edge-1'))?.status).toBe('Unknown');
  });
});

