import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { EDGE_ACCEPTS } from '../../edge/hub/edge-hub.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { ApplyMessage, DownMessage, PatchMessage } from '../../shared/protocol/envelope.js';
import { applyMergePatch, syncedDigest } from '../../shared/protocol/object-patch.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { NodeDouble } from '../support/memory-peers.js';
import { MemorySync } from '../support/memory-sync.js';
import { runUntil } from '../support/settle.js';

const timing = { ...defaultTiming, resendMinMs: 2_000, resendMaxMs: 16_000 };
const podRef = { resource: 'pods', namespace: 'default', name: 'web' };

/** A pod as the API stores one after its edge reported: defaults, tolerations, a status. */
const fullPod = (): Pod =>
  ({
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      nodeName: 'edge-1',
      containers: [{ name: 'main', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      tolerations: ['not-ready', 'unreachable'].map((t) => ({ key: `node.kubernetes.io/${t}`, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 })),
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: '2026-12-03T10:00:00.000Z' })),
      hostIP: '127.0.0.1',
      startTime: '2026-12-03T10:00:00.000Z',
      containerStatuses: [{ name: 'main', ready: true, started: true, restartCount: 0, image: 'nginx:1.27', imageID: 'nginx@sha256:e5b8bc3b7534ae4e7342a44857c43587f5a866744eff9925dba0a6e95d1c05ec', state: { running: { startedAt: '2026-12-03T10:00:00.000Z' } }, containerID: 'sim://cc0cb6dd78709a50b3affeeb5e2d80c4' }],
      qosClass: 'BestEffort',
      podIP: '127.64.0.2',
    },
  }) as unknown as Pod;

describe('lean sync at the hub: patches from the acked version, status left to its owner, compressed payloads', () => {
  let sync: MemorySync;
  let api: FakeApiClient;
  let clock: FakeClock;
  let hub: CloudHubHandle;
  let edge: NodeDouble;

  beforeEach(async () => {
    api = new FakeApiClient();
    clock = new FakeClock();
    sync = new MemorySync({ clock, timing });
    hub = await startCloudHub({ api, apiAsNode: () => api, ...sync.cloudLink(), clock, timing, logger: memoryLogger('cloud'), ledger: new MemoryAckLedger() });
    edge = await NodeDouble.connect(sync, 'edge-1');
  });
  afterEach(async () => {
    await edge.close();
    await hub.close();
    await sync.close();
  });

  const hello = async (accepts?: readonly string[]): Promise<void> => {
    const h = await edge.send({ type: 'hello', body: { bootId: 'b', holds: [], ...(accepts ? { accepts: [...accepts] } : {}) } });
    await edge.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced');
  };
  const next = async <T extends DownMessage>(type: T['type'], what: string): Promise<T> => {
    const seen = edge.received.length;
    const [m] = await edge.expect((x) => x.type === type && edge.received.indexOf(x) >= seen, 1, what);
    return m as T;
  };
  /** The pod is created, sent whole, and acked: the ledger holds its version. */
  const createAcked = async (): Promise<{ pod: Pod; apply: ApplyMessage }> => {
    const applied = next<ApplyMessage>('apply', 'the apply of the new pod');
    const pod = await api.create<Pod>(podRef, fullPod());
    const apply = await applied;
    await edge.send({ type: 'ack', parentId: apply.id });
    await runUntil(clock, () => hub.ledger.get('edge-1', pod.metadata.uid!)?.resourceVersion === pod.metadata.resourceVersion, 'the ack in the ledger');
    return { pod, apply };
  };
  const relabel = (run: string): Promise<Pod> => api.patch<Pod>(podRef, { metadata: { labels: { app: 'web', run } } });

  it('sends a label change as a patch against the acked version, in under a quarter of the whole object’s bytes', async () => {
    await hello(EDGE_ACCEPTS);
    const { pod, apply } = await createAcked();
    expect(edge.wireBytes.get(apply.id)).toBeLessThan(JSON.stringify(apply).length / 2); // compressed
    const patched = next<PatchMessage>('patch', 'the patch');
    const changed = await relabel('1');
    const patch = await patched;
    const whole = Buffer.byteLength(JSON.stringify({ ...apply, ref: patch.ref, body: changed }));
    expect(edge.wireBytes.get(patch.id)).toBeLessThan(whole / 4);
    expect(patch).toMatchObject({ base: pod.metadata.resourceVersion, ref: { uid: pod.metadata.uid, resourceVersion: changed.metadata.resourceVersion } });
    // Applied to the body the edge acked, it rebuilds exactly the new version.
    const rebuilt = applyMergePatch(apply.body, patch.body) as Pod;
    expect(rebuilt.metadata.labels).toEqual({ app: 'web', run: '1' });
    expect(syncedDigest('Pod', rebuilt)).toBe(patch.digest);
  });

  it('sends the whole object when the edge refuses a patch (its base is not what it holds), and patches again after that ack', async () => {
    await hello(EDGE_ACCEPTS);
    await createAcked();
    const patch = await (async () => {
      const p = next<PatchMessage>('patch', 'the patch');
      await relabel('1');
      return p;
    })();
    const whole = next<ApplyMessage>('apply', 'the whole object after the refusal');
    await edge.send({ type: 'nack', parentId: patch.id, body: { reason: 'holds version 1, the patch is against 2' } });
    const apply = await whole;
    expect(apply.ref).toEqual(patch.ref);
    expect(apply.body.metadata.labels).toEqual({ app: 'web', run: '1' });
    expect(apply.keepStatus).toBeUndefined();
    await edge.send({ type: 'ack', parentId: apply.id });
    await runUntil(clock, () => hub.ledger.get('edge-1', apply.ref.uid)?.resourceVersion === apply.ref.resourceVersion, 'the ack in the ledger');
    const again = next<PatchMessage>('patch', 'a patch against the version acked after the refusal');
    await relabel('2');
    expect((await again).base).toBe(apply.ref.resourceVersion);
  });

  it('leaves a pod’s status out once its edge reported one of its own', async () => {
    await hello(EDGE_ACCEPTS);
    const { pod } = await createAcked();
    await edge.send({ type: 'podStatus', ref: { kind: 'Pod', namespace: 'default', name: 'web', uid: pod.metadata.uid! }, body: { phase: 'Running' }, statusVersion: 1 });
    await runUntil(clock, () => edge.received.some((m) => m.type === 'ack'), 'the status acked');
    const patched = next<PatchMessage>('patch', 'the patch');
    await api.patch<Pod>(podRef, { metadata: { labels: { app: 'web', run: '1' } }, spec: { containers: [{ ...fullPod().spec.containers[0]!, image: 'nginx:1.28' }] } });
    const patch = await patched;
    expect(patch.keepStatus).toBe(true);
    expect(patch.body).not.toHaveProperty('status');
  });

  it('sends an edge that offers no lean form whole, uncompressed objects, as before', async () => {
    await hello();
    const { apply } = await createAcked();
    expect(edge.wireBytes.get(apply.id)).toBe(Buffer.byteLength(JSON.stringify(apply)));
    const whole = next<ApplyMessage>('apply', 'the relabelled pod, whole');
    await relabel('1');
    expect((await whole).body.metadata.labels).toEqual({ app: 'web', run: '1' });
    expect(edge.received.some((m) => m.type === 'patch')).toBe(false);
  });
});
