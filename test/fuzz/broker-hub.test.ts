import { afterEach, describe, expect, it } from 'vitest';
import { CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import { decodeInbound } from '../../cloud/hub/inbound.js';
import { podsIn } from '../../edge/metamanager/local-cache.js';
import { FakeClock } from '../../shared/clock.js';
import { decodeDown, decodeUp, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage, type ObjectRef, type UpDraft } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Transport } from '../../shared/transport.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { newPod, podRef, startFirstPod } from '../support/cluster-pods.js';
import { runUntil } from '../support/settle.js';
import { protocolPayloads, rand, type Json } from './payloads.js';

/**
 * A seeded fuzz of the cloud hub and the edge hub [SYNC-1], over the in-memory broker on fake
 * time: random and mangled payloads on a node's up topic and on an edge's down topic. Nothing
 * may crash or hang, every payload the codec rejects is counted, and a real edge still gets new
 * pods to Running afterwards. (Raw bytes on the embedded broker's port: broker-bytes.test.ts.)
 * Replay another seed with KEDGE_SEED=<n>.
 */
const SEED = process.env.KEDGE_SEED === undefined ? 20260101 : Number(process.env.KEDGE_SEED);
const UP = 400;
const DOWN = 250;
const FUZZ_NODE = 'fuzz-1';

const isReady = (node: Node): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const refOf = (pod: Pod): ObjectRef => ({ kind: 'Pod', namespace: 'default', name: pod.metadata.name!, uid: pod.metadata.uid!, resourceVersion: pod.metadata.resourceVersion! });

describe(`fuzz: cloud hub and edge hub over the in-memory broker (seed ${SEED})`, () => {
  let cluster: Cluster<FakeClock> | undefined;
  const clients: Transport[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await cluster?.stop();
    cluster = undefined;
  });

  /** A client of the cluster's broker, started on `subscriptions` and connected. */
  const client = async (c: Cluster<FakeClock>, clientId: string, username: string, password: string, subscriptions: string[] = []): Promise<Transport> => {
    const transport = c.transport({ clientId, username, password });
    clients.push(transport);
    transport.start({ subscriptions });
    await runUntil(c.clock, () => transport.connectivity.connected, `${clientId} connected`);
    return transport;
  };
  const fuzzNode = (c: Cluster<FakeClock>): Promise<Transport> => client(c, FUZZ_NODE, FUZZ_NODE, c.cloud.credentials.edge, [topics.down(FUZZ_NODE)]);
  const fuzzCloud = (c: Cluster<FakeClock>): Promise<Transport> => client(c, 'kedge-cloud-fz', CLOUD_USERNAME, c.cloud.credentials.hub);

  /** Creates a pod and waits until the cloud sees it Running (on `node`, when given) and its edge holds it. */
  const runNewPod = async (c: Cluster<FakeClock>, name: string, node?: string): Promise<Pod> => {
    await c.api.create(podRef(name), newPod(name));
    const pod = await runUntil(c.clock, async () => {
      const p = await c.api.get<Pod>(podRef(name));
      return p.status?.phase === 'Running' && p;
    }, `pod ${name} Running`);
    if (node) expect(pod.spec.nodeName).toBe(node);
    expect(pod.status?.podIP).toMatch(/^127\.\d+\.\d+\.\d+$/); // from its node's podCIDR
    expect(podsIn(c.edge(pod.spec.nodeName!).cache).map((p) => p.metadata.uid)).toContain(pod.metadata.uid);
    return pod;
  };

  it(`cloud hub: ${UP} random and mangled payloads on a node's up topic`, async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    const web = await startFirstPod(c, 'web', runUntil);
    const fuzzer = await fuzzNode(c);
    const downs = recordDown(fuzzer);

    const all = protocolPayloads(rand(SEED + 1), UP, upTemplates(refOf(web)));
    const payloads = all;
    const codecRejects = payloads.filter((p) => !decodeUp(p).ok).length;
    const hubRejects = payloads.filter((p) => !decodeInbound(topics.up(FUZZ_NODE), p).ok).length;
    console.info(`seed ${SEED}: ${all.length} up payloads, ${all.length - payloads.length} left out (BUG cases); of the rest ${codecRejects} rejected by the codec, ${hubRejects} by the hub`);
    expect(codecRejects).toBeGreaterThan(payloads.length / 2);
    expect(hubRejects).toBeGreaterThanOrEqual(codecRejects);
    expect(payloads.length - hubRejects).toBeGreaterThan(0); // valid, pointless messages too

    const before = c.cloud.hub.stats().malformed;
    const malformed = (): number => c.cloud.hub.stats().malformed - before;
    await publishAll(c, fuzzer, topics.up(FUZZ_NODE), payloads);
    await runUntil(c.clock, () => malformed() >= hubRejects, `${hubRejects} payloads counted malformed`);
    expect(malformed()).toBeGreaterThanOrEqual(codecRejects);
    expect(malformed()).toBe(hubRejects);

    // The hub still answers this node: a real hello gets its synced.
    const hello = new EnvelopeStamper(FUZZ_NODE, 'fz-final').stamp({ type: 'hello', body: { bootId: 'fz-boot', holds: [] } });
    await fuzzer.publish(topics.up(FUZZ_NODE), encode(hello));
    await runUntil(c.clock, () => downs.some((m) => m.type === 'synced' && m.parentId === hello.id), 'synced for the final hello');

    // No harm done: the running pod keeps its status, and the fuzz node is not schedulable.
    const webNow = await c.api.get<Pod>(podRef('web'));
    expect(webNow.metadata.uid).toBe(web.metadata.uid);
    expect(webNow.status).toEqual(web.status);
    const nodes = (await c.api.list<Node>({ resource: 'nodes' })).items;
    expect(nodes.filter(isReady).map((n) => n.metadata.name)).toEqual(['edge-1']);

    // A real edge still syncs a new pod, and its status reaches the cloud.
    expect(c.edge('edge-1').hub.connectivity.connected).toBe(true);
    await runNewPod(c, 'after', 'edge-1');
    expect(malformed()).toBe(hubRejects);
  });

  it(`edge hub: ${DOWN} random and mangled payloads on its down topic, as the cloud`, async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await startFirstPod(c, 'web', runUntil);
    const edge = c.edge('edge-1');
    const fuzzer = await fuzzCloud(c);

    const all = protocolPayloads(rand(SEED + 2), DOWN, downTemplates());
    const payloads = all;
    const rejects = payloads.filter((p) => !decodeDown(p).ok).length;
    console.info(`seed ${SEED}: ${all.length} down payloads, ${all.length - payloads.length} left out (BUG cases); of the rest ${rejects} rejected by the codec`);
    expect(rejects).toBeGreaterThan(payloads.length / 2);
    expect(payloads.length - rejects).toBeGreaterThan(0); // valid ones too: the edge applies them

    const before = edge.malformed();
    await publishAll(c, fuzzer, topics.down('edge-1'), payloads);
    await runUntil(c.clock, () => edge.malformed() - before >= rejects, `${rejects} payloads counted malformed at the edge`);
    expect(edge.malformed() - before).toBe(rejects);

    expect(edge.hub.connectivity.connected).toBe(true);
    await runNewPod(c, 'after', 'edge-1');
    expect(edge.malformed() - before).toBe(rejects);
  });

  /** One edge running a pod, and a client that sends as a node (fuzz-1) or as the cloud. */
  async function regressionCluster(as: 'node' | 'cloud'): Promise<{ c: Cluster<FakeClock>; fuzzer: Transport }> {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 }));
    await startFirstPod(c, 'web', runUntil);
    const fuzzer = as === 'node' ? await fuzzNode(c) : await fuzzCloud(c);
    return { c, fuzzer };
  }

  // Regressions: each of these payloads once crashed a process or stalled a node.
  // A `type` nested ~5,000 deep, or a deeply nested `v`, made the codec's error message throw
  // (RangeError) inside the hub's or the edge's inbound stream; payloads deeper than
  // MAX_PAYLOAD_NESTING are now refused before parsing.
  it('regression: one deeply nested `type` on an up topic killed the hub\'s inbound stream', async () => {
    const { c, fuzzer } = await regressionCluster('node');
    const downs = recordDown(fuzzer);
    const before = c.cloud.hub.stats().malformed;
    await publishAll(c, fuzzer, topics.up(FUZZ_NODE), deeplyNested(FUZZ_NODE));
    await runUntil(c.clock, () => c.cloud.hub.stats().malformed - before === 2, 'both counted malformed');
    const hello = new EnvelopeStamper(FUZZ_NODE, 'fz-final').stamp({ type: 'hello', body: { bootId: 'fz-boot', holds: [] } });
    await fuzzer.publish(topics.up(FUZZ_NODE), encode(hello));
    await runUntil(c.clock, () => downs.some((m) => m.type === 'synced' && m.parentId === hello.id), 'synced for a hello sent afterwards');
    await runNewPod(c, 'after', 'edge-1');
  });

  // A Node whose status.conditions was a number reached the scheduler (TypeError in an rxjs
  // subscriber); the apiserver now refuses such a Node as Go's decoding would.
  it('regression: a nodeStatus whose status.conditions is a number crashed the scheduler', async () => {
    const { c, fuzzer } = await regressionCluster('node');
    const report = new EnvelopeStamper(FUZZ_NODE, 'fz').stamp({ type: 'nodeStatus', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: FUZZ_NODE }, status: { conditions: 1 } } as unknown as Node });
    await publishAll(c, fuzzer, topics.up(FUZZ_NODE), [encode(report)]);
    await runNewPod(c, 'after', 'edge-1');
    // The apiserver refuses such a Node (400, as Go's decoding would), so nothing else ever reads it.
    expect((await c.api.list<Node>({ resource: 'nodes' })).items.map((n) => n.metadata.name)).toEqual(['edge-1']);
  });

  it('regression: one deeply nested `type` on a down topic killed the edge\'s inbound stream', async () => {
    const { c, fuzzer } = await regressionCluster('cloud');
    const edge = c.edge('edge-1');
    const before = edge.malformed();
    await publishAll(c, fuzzer, topics.down('edge-1'), [...deeplyNested('cloud'), Buffer.from('not json')]);
    await runUntil(c.clock, () => edge.malformed() - before === 3, 'all three counted malformed at the edge');
    await runNewPod(c, 'after', 'edge-1');
  });

  // A container image that was a number made edged's whole sync pass throw on every tick.
  it('regression: one apply whose container image is a number stopped edged for every pod', async () => {
    const { c, fuzzer } = await regressionCluster('cloud');
    const apply = downTemplates()[0]!;
    const body = apply.body as { spec: { containers: { image: Json }[] } };
    body.spec.containers[0]!.image = -0.5;
    await publishAll(c, fuzzer, topics.down('edge-1'), [Buffer.from(JSON.stringify(apply))]);
    await runNewPod(c, 'after', 'edge-1');
  });

  // A body nested ~10,000 deep made the cache's structuredClone throw in the edge's inbound
  // subscriber; now refused by the codec, and a failed apply is logged, never fatal.
  it('regression: one apply with a deeply nested body field crashed the edge', async () => {
    const { c, fuzzer } = await regressionCluster('cloud');
    const apply = JSON.stringify({ ...downTemplates()[0]!, body: { ...(downTemplates()[0]!.body as Record<string, Json>), extra: '@@deep@@' } });
    await publishAll(c, fuzzer, topics.down('edge-1'), [Buffer.from(apply.replace('"@@deep@@"', `${'{"a":'.repeat(10_000)}{}${'}'.repeat(10_000)}`))]);
    await runNewPod(c, 'after', 'edge-1');
  });
});

/** Two small payloads (~60 KB and ~20 KB) on which the codec once threw instead of rejecting. */
function deeplyNested(sender: string): Buffer[] {
  const depth = 10_000;
  const head = `"id":"x.1","seq":1,"sender":"${sender}","epoch":"x"`;
  return [
    Buffer.from(`{"v":1,${head},"type":${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}}`),
    Buffer.from(`{"v":${'['.repeat(depth)}${']'.repeat(depth)},${head},"type":"ack","parentId":"p"}`),
  ];
}


function recordDown(client: Transport): DownMessage[] {
  const downs: DownMessage[] = [];
  client.inbound$.subscribe(({ payload }) => {
    const decoded = decodeDown(payload);
    if (decoded.ok) downs.push(decoded.message);
  });
  return downs;
}

/** Publishes every payload in order at QoS 1 and waits (on fake time) for the broker's PUBACKs. */
async function publishAll(c: Cluster<FakeClock>, client: Transport, topic: string, payloads: readonly Buffer[]): Promise<void> {
  let acked = 0;
  const failures: unknown[] = [];
  for (const payload of payloads) client.publish(topic, payload).then(() => acked++, (err: unknown) => failures.push(err));
  await runUntil(c.clock, () => acked + failures.length === payloads.length, `${payloads.length} publishes acknowledged`);
  expect(failures).toEqual([]);
}

/** Valid up messages from the fuzz node, some about a pod that runs on another node. */
function upTemplates(web: ObjectRef): Record<string, Json>[] {
  const stamper = new EnvelopeStamper(FUZZ_NODE, 'fz');
  const ghost: ObjectRef = { kind: 'Pod', namespace: 'default', name: 'ghost', uid: 'ghost-uid', resourceVersion: '7' };
  const failed = { phase: 'Failed', reason: 'Fuzz', containerStatuses: [{ name: 'main', ready: false, restartCount: 9, image: 'x', imageID: 'x', state: { terminated: { exitCode: 1 } } }] };
  return [
    stamper.stamp({ type: 'hello', body: { bootId: 'fz-boot', holds: [web, ghost] } }),
    stamper.stamp({ type: 'nodeStatus', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: FUZZ_NODE, labels: { fuzz: 'yes' } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Fuzz' }] } } }),
    stamper.stamp({ type: 'heartbeat' }),
    stamper.stamp({ type: 'podStatus', ref: web, body: failed, statusVersion: 1e12 } as UpDraft),
    stamper.stamp({ type: 'podStatus', ref: ghost, body: { phase: 'Running' }, statusVersion: 1 }),
    stamper.stamp({ type: 'logResponse', parentId: 'cloud.1', body: { text: 'hello\n', cursor: { containerId: 'c1', time: 1, count: 1 }, exited: true } }),
    stamper.stamp({ type: 'ack', parentId: 'cloud.1' }),
  ] as unknown as Record<string, Json>[];
}

/** Valid down messages about pods the cloud does not have. */
function downTemplates(): Record<string, Json>[] {
  const stamper = new EnvelopeStamper('cloud', 'fz-cloud');
  const ghost: ObjectRef = { kind: 'Pod', namespace: 'default', name: 'ghost', uid: 'ghost-uid', resourceVersion: '5' };
  const pod = newPod('ghost');
  const body: Pod = { ...pod, metadata: { name: 'ghost', namespace: 'default', uid: 'ghost-uid', resourceVersion: '5' }, spec: { ...pod.spec, nodeName: 'edge-1' } };
  return [
    stamper.stamp({ type: 'apply', ref: ghost, body }),
    stamper.stamp({ type: 'delete', ref: { kind: 'Pod', namespace: 'default', name: 'ghost-2', uid: 'ghost-2-uid' } }),
    stamper.stamp({ type: 'logRequest', ref: ghost, body: { tailLines: 5, timestamps: true } }),
    stamper.stamp({ type: 'synced', parentId: 'edge-1.0', body: { applies: 0, deletes: 0 } }),
    stamper.stamp({ type: 'ack', parentId: 'nobody.1' }),
  ] as unknown as Record<string, Json>[];
}
