import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { HelloMessage, NodeStatusMessage, PodStatusMessage, UpMessage } from '../../shared/protocol/envelope.js';
import { defaultTiming, type Timing } from '../../shared/timing.js';
import type { ObjectList, Pod } from '../../shared/types.js';
import { CloudDouble } from '../support/memory-peers.js';
import { MemorySync, NODE_PASSWORD } from '../support/memory-sync.js';
import { pass, runUntil } from '../support/settle.js';
import { pod } from './fixtures.js';
import { TEST_POD_CIDR } from '../support/test-network.js';

const NODE = 'edge-1';
const timing: Timing = { ...defaultTiming, syncIntervalMs: 1000, statusResendMs: 2000, containerStartMs: 200, nodeStatusIntervalMs: 10_000 };

const isPodStatus = (phase?: string) => (m: UpMessage) => m.type === 'podStatus' && (phase === undefined || m.body.phase === phase);
const getJson = async <T>(url: string): Promise<T> => (await fetch(url)).json() as Promise<T>;

describe('edge over the in-memory broker, on fake time', () => {
  let dir: string;
  let sync: MemorySync;
  let cloud: CloudDouble;
  let clock: FakeClock;
  let edges: EdgeHandle[];
  const logger = memoryLogger('edge');

  const start = (): Promise<EdgeHandle> =>
    startEdge({ nodeName: NODE, brokerUrl: 'memory://broker', transport: sync.transport, token: NODE_PASSWORD, dataDir: dir, localApiPort: 0, timing, clock, logger, random: () => 0.5, podCIDR: TEST_POD_CIDR }).then((e) => {
      edges.push(e);
      return e;
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edge-'));
    clock = new FakeClock();
    sync = new MemorySync({ clock, timing });
    cloud = await CloudDouble.connect(sync, NODE);
    edges = [];
  });

  afterEach(async () => {
    for (const e of edges) await e.stop();
    await sync.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Plays the cloud's side of one pod: apply, wait for the ack, ack statuses as they come. */
  async function applyPod(p: Pod) {
    const ref = { kind: 'Pod', namespace: 'default', name: p.metadata.name!, uid: p.metadata.uid!, resourceVersion: p.metadata.resourceVersion! };
    const apply = await cloud.send({ type: 'apply', ref, body: p });
    await cloud.expect((m) => m.type === 'ack' && m.parentId === apply.id, 1, 'ack of the apply');
    return { ref, apply };
  }

  async function ackStatuses(): Promise<void> {
    for (const m of cloud.received.filter(isPodStatus())) await cloud.send({ type: 'ack', parentId: m.id });
  }

  it('says hello, registers the node, runs an applied pod, reports and serves it, then deletes it', async () => {
    const edge = await start();
    const [hello] = await cloud.expect<HelloMessage>((m) => m.type === 'hello', 1, 'hello');
    expect(hello!.body).toEqual({ bootId: edge.bootId, holds: [], accepts: ['deflate-d1', 'patch-v1'] });
    expect(hello!.sender).toBe(NODE);
    const [node] = await cloud.expect<NodeStatusMessage>((m) => m.type === 'nodeStatus', 1, 'nodeStatus');
    // Only labels a kubelet may set on itself (NodeRestriction): the cloud gives the node its role.
    expect(node!.body.metadata.labels).toEqual({ 'kubernetes.io/hostname': NODE, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' });
    expect(node!.body.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    expect(node!.body.status?.nodeInfo).toMatchObject({ containerRuntimeVersion: 'sim://0.1.0', kubeletVersion: 'v1.32.4-kedge', bootID: edge.bootId });
    await runUntil(clock, () => cloud.presences.some((p) => p.online && p.epoch === edge.epoch), 'presence online');

    const { ref } = await applyPod(pod('web', 'u1'));
    // The ack came after the cache was on disk [SYNC-8]; then edged starts the pod.
    const [pending] = await cloud.expect<PodStatusMessage>(isPodStatus('Pending'), 1, 'podStatus Pending');
    expect(pending!.ref.uid).toBe('u1');
    expect(pending!.body.containerStatuses?.[0]?.state.waiting?.reason).toBe('ContainerCreating');
    await ackStatuses();
    await clock.advance(timing.syncIntervalMs);
    const [running] = await cloud.expect<PodStatusMessage>(isPodStatus('Running'), 1, 'podStatus Running');
    expect(running!.body).toMatchObject({ hostIP: '127.0.0.1', podIP: '127.64.1.2' }); // the first pod address of its podCIDR
    expect(running!.body.containerStatuses?.[0]).toMatchObject({ ready: true, started: true, containerID: expect.stringMatching(/^sim:\/\//) });

    const list = await getJson<ObjectList<Pod>>(`${edge.localApiUrl}/pods`);
    expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
    expect(list.items.map((p) => [p.metadata.name, p.status?.phase])).toEqual([['web', 'Running']]);
    expect(await (await fetch(`${edge.localApiUrl}/healthz`)).text()).toBe('ok');

    await ackStatuses();
    await runUntil(clock, () => edge.cache.outbox().length === 0, 'outbox drained by acks');
    expect(await getJson(`${edge.localApiUrl}/connection`)).toEqual({ connected: true, offlineSince: null, queued: 0, lastHeardFromBroker: expect.any(String), silentForSeconds: expect.any(Number), keepaliveSeconds: 10 });

    const del = await cloud.send({ type: 'delete', ref });
    await cloud.expect((m) => m.type === 'ack' && m.parentId === del.id, 1, 'ack of the delete');
    await edge.edged.sync(); // the delete already triggered a sync; this waits for one after it
    expect(await edge.runtime.listSandboxes()).toEqual([]);
    expect(await edge.runtime.listContainers()).toEqual([]);
    expect((await getJson<ObjectList<Pod>>(`${edge.localApiUrl}/pods`)).items).toEqual([]);
  });

  it('ignores an older apply and a tombstone with another uid, but acks both [SYNC-6][SYNC-7]', async () => {
    const edge = await start();
    await cloud.expect((m) => m.type === 'hello');
    await applyPod({ ...pod('web', 'u1'), metadata: { ...pod('web', 'u1').metadata, resourceVersion: '7' } });
    await applyPod(pod('web', 'u1')); // resourceVersion 1 < 7
    const del = await cloud.send({ type: 'delete', ref: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'other' } });
    await cloud.expect((m) => m.type === 'ack' && m.parentId === del.id);
    expect(edge.cache.objects().map((o) => [o.uid, o.resourceVersion])).toEqual([['u1', '7']]);
  });

  it('re-sends a status the cloud did not ack after statusResendMs [SYNC-12]', async () => {
    await start();
    await cloud.expect((m) => m.type === 'hello');
    await applyPod(pod('web', 'u1'));
    await cloud.expect(isPodStatus('Pending'));
    await clock.advance(timing.syncIntervalMs); // Running, queued over the unacked Pending
    const [first] = await cloud.expect(isPodStatus('Running'));
    await clock.advance(timing.statusResendMs);
    const both = await cloud.expect(isPodStatus('Running'), 2, 'the re-sent status');
    expect(both[1]!.id).not.toBe(first!.id);
    await cloud.send({ type: 'ack', parentId: both[1]!.id });
    await runUntil(clock, () => cloud.received.length && edges[0]!.cache.outbox().length === 0, 'acked');
    const sent = cloud.received.filter(isPodStatus()).length;
    await clock.advance(timing.statusResendMs * 2);
    expect(cloud.received.filter(isPodStatus())).toHaveLength(sent);
  });

  it('drops, counts and logs a malformed payload and keeps working [SYNC-1]', async () => {
    const edge = await start();
    await cloud.expect((m) => m.type === 'hello');
    await cloud.sendRaw('{not json');
    await cloud.sendRaw(JSON.stringify({ v: 1, id: 'x', seq: 1, sender: 'cloud', epoch: 'c', type: 'explode' }));
    await runUntil(clock, () => edge.malformed() === 2, 'two malformed payloads counted');
    expect(logger.lines.some((l) => l.includes('dropped a malformed message'))).toBe(true);
    await applyPod(pod('web', 'u1'));
    await cloud.expect(isPodStatus('Pending'));
  });

  it('keeps running pods and answers locally with the broker gone; restarts offline from the cache', async () => {
    const edge = await start();
    await cloud.expect((m) => m.type === 'hello');
    await applyPod(pod('web', 'u1'));
    await clock.advance(timing.syncIntervalMs);
    await cloud.expect(isPodStatus('Running'));
    const [container] = await edge.runtime.listContainers();

    const wentDown = clock.now();
    await cloud.close();
    sync.broker.stop();
    await runUntil(clock, () => !edge.hub.connectivity.connected, 'edge sees the broker gone');
    await pass(clock, 10 * timing.syncIntervalMs); // reconnect attempts fail meanwhile

    const connection = await getJson<{ connected: boolean; offlineSince: string; queued: number }>(`${edge.localApiUrl}/connection`);
    expect(connection.connected).toBe(false);
    expect(Date.parse(connection.offlineSince)).toBe(wentDown);
    const list = await getJson<ObjectList<Pod>>(`${edge.localApiUrl}/pods`);
    expect(list.items.map((p) => p.status?.phase)).toEqual(['Running']);
    expect(await edge.runtime.listContainers()).toEqual([container]);

    // A kubelet restart with the cloud still unreachable: same pods, same containers.
    await edge.stop();
    const again = await start();
    await again.edged.sync();
    expect((await getJson<ObjectList<Pod>>(`${again.localApiUrl}/pods`)).items.map((p) => p.metadata.name)).toEqual(['web']);
    expect(await again.runtime.listContainers()).toEqual([container]);
    expect(again.hub.connectivity.connected).toBe(false);
  });

  it('reconnects with backoff when the broker comes back, and says hello with what it holds [SYNC-9]', async () => {
    const edge = await start();
    await cloud.expect((m) => m.type === 'hello');
    await applyPod(pod('web', 'u1'));
    await cloud.close();
    sync.broker.stop();
    const lost = clock.now();
    await runUntil(clock, () => !edge.hub.connectivity.connected, 'offline');
    expect(clock.now()).toBe(lost);
    // random() = 0.5 puts each wait at 3/4 of its window: the first retry, 188 ms (of 250) after the loss, finds the broker down;
    await pass(clock, 188);
    expect(edge.hub.connectivity.connected).toBe(false);
    sync.broker.start();
    cloud = await CloudDouble.connect(sync, NODE);
    // the second comes 375 ms (of 500) after the first.
    await pass(clock, 374);
    expect(edge.hub.connectivity.connected).toBe(false);
    await pass(clock, 1);
    expect(edge.hub.connectivity.connected).toBe(true);
    const [hello] = await cloud.expect<HelloMessage>((m) => m.type === 'hello', 1, 'hello after reconnect');
    expect(hello!.body.holds).toEqual([{ kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', resourceVersion: '1' }]);
    await cloud.expect(isPodStatus(), 1, 'pending statuses flushed on reconnect');
  });
});
