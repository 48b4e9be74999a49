import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { UpMessage } from '../../shared/protocol/envelope.js';
import type { Node } from '../../shared/types.js';
import { HUB_REJECTED } from '../../cloud/hub/index.js';
import { Cluster } from '../../sim/local-cluster.js';
import { MqttEdge } from '../support/mqtt-edge.js';

const nodeReport = (name: string, labels: Record<string, string>, ready = 'True'): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  spec: {},
  status: { conditions: [{ type: 'Ready', status: ready as 'True' }] },
});

/**
 * What an edge reports over MQTT, the hub writes through the API as that node (user
 * system:node:<name>), so the Node authorizer and NodeRestriction hold for an edge as for a
 * node token: a rogue edge cannot register with labels a kubelet may not set, nor write another
 * node's Node.
 */
describe('the hub writes what an edge reports as that node', () => {
  let cluster: Cluster<FakeClock>;
  const edges: MqttEdge[] = [];
  beforeEach(async () => {
    cluster = await Cluster.start({ transport: 'mqtt', clock: new FakeClock(), nodes: 0 });
  });
  afterEach(async () => {
    await Promise.all(edges.splice(0).map((e) => e.close()));
    await cluster.stop();
  });

  const connect = async (node: string): Promise<MqttEdge> => {
    const edge = await MqttEdge.connect(cluster.cloud.brokerUrl, node, cluster.cloud.credentials.edge);
    edges.push(edge);
    return edge;
  };
  const acked = (edge: MqttEdge, sent: UpMessage): boolean => edge.received.some((m) => m.type === 'ack' && m.parentId === sent.id);
  /** Sends `report`, then one the hub surely takes; messages of a node are handled in order, so the first one is settled when the second is acked. */
  const settle = async (edge: MqttEdge, report: Node): Promise<UpMessage> => {
    const sent = await edge.send({ type: 'nodeStatus', body: report });
    const sentinel = await edge.send({ type: 'nodeStatus', body: nodeReport(edge.node, { 'kubernetes.io/hostname': edge.node }) });
    await edge.expect((m) => m.type === 'ack' && m.parentId === sentinel.id, 1, 'ack of the sentinel report');
    return sent;
  };
  const getNode = (name: string): Promise<Node> => cluster.api.get<Node>({ resource: 'nodes', name });

  it('registers an edge with the labels a kubelet may set, and the cloud gives it the edge role', async () => {
    const edge = await connect('edge-9');
    const report = nodeReport('edge-9', { 'kubernetes.io/hostname': 'edge-9', 'example.com/rack': 'r1' });
    const sent = await edge.send({ type: 'nodeStatus', body: report });
    await edge.expect((m) => m.type === 'ack' && m.parentId === sent.id, 1, 'ack of the registration');
    expect((await getNode('edge-9')).metadata.labels).toEqual({ 'kubernetes.io/hostname': 'edge-9', 'example.com/rack': 'r1', 'node-role.kubernetes.io/edge': '' });
  });

  it('registers an edge from before the cloud gave the role, which claimed the edge role itself', async () => {
    const edge = await connect('edge-7');
    const sent = await edge.send({ type: 'nodeStatus', body: nodeReport('edge-7', { 'kubernetes.io/hostname': 'edge-7', 'node-role.kubernetes.io/edge': '' }) });
    await edge.expect((m) => m.type === 'ack' && m.parentId === sent.id, 1, 'ack of the registration');
    expect((await getNode('edge-7')).metadata.labels).toEqual({ 'kubernetes.io/hostname': 'edge-7', 'node-role.kubernetes.io/edge': '' });
  });

  /** Refused for good: dropped (acked, so the edge stops sending it), counted, nothing written. */
  const refusedByApi = (): number => cluster.cloud.counters.get(HUB_REJECTED, { reason: 'refused-by-api' });

  it('refuses a registration with a role or node-restriction label: no such labels, the report dropped and counted', async () => {
    const edge = await connect('edge-9');
    const rogue = await settle(edge, nodeReport('edge-9', { 'node-role.kubernetes.io/control-plane': '', 'node-restriction.kubernetes.io/pool': 'gpu' }));
    expect(acked(edge, rogue)).toBe(true);
    expect(refusedByApi()).toBe(1);
    const labels = (await getNode('edge-9')).metadata.labels ?? {};
    expect(labels).toEqual({ 'kubernetes.io/hostname': 'edge-9', 'node-role.kubernetes.io/edge': '' });
  });

  it("refuses an edge's report for another node's Node", async () => {
    const victim = await connect('edge-8');
    await settle(victim, nodeReport('edge-8', { 'kubernetes.io/hostname': 'edge-8' }));
    const rogue = await connect('edge-9');
    const forged = await settle(rogue, nodeReport('edge-8', { 'kubernetes.io/hostname': 'edge-8' }, 'False'));
    expect(acked(rogue, forged)).toBe(false); // not even decoded: the sender is not the Node it reports
    expect((await getNode('edge-8')).status?.conditions?.[0]?.status).toBe('True');
  });

  it('an edge node may not taint or cordon itself through its reports', async () => {
    const edge = await connect('edge-9');
    await settle(edge, nodeReport('edge-9', { 'kubernetes.io/hostname': 'edge-9' }));
    await cluster.api.patch({ resource: 'nodes', name: 'edge-9' }, { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } });
    const report = { ...nodeReport('edge-9', { 'kubernetes.io/hostname': 'edge-9' }), spec: { unschedulable: true, taints: [] } };
    await settle(edge, report);
    // Its pod range (node IPAM's, when written by then) is not the point here.
    const { podCIDR: _range, podCIDRs: _ranges, ...spec } = (await getNode('edge-9')).spec ?? {};
    expect(spec).toEqual({ taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] });
  });
});
