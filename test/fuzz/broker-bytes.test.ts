import { connect as tcpConnect, type Socket } from 'node:net';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { topics } from '../../shared/protocol/topics.js';
import { Cluster } from '../../sim/local-cluster.js';
import { startFirstPod } from '../support/cluster-pods.js';
import { eventually } from '../support/eventually.js';
import { waitFor } from '../support/wait.js';
import { connectPacket, rand, rawPayloads } from './payloads.js';

/**
 * A seeded fuzz of the embedded broker's TCP port [SYNC-1]: random byte strings on fresh
 * connections and stalled CONNECTs held open. Real sockets are the point (what aedes and the
 * connection guard do with bytes), so this stays on MQTT and the wall clock; the protocol fuzz
 * of the hubs runs over the in-memory broker (broker-hub.test.ts). Replay another seed with KEDGE_SEED=<n>.
 */
const SEED = process.env.KEDGE_SEED === undefined ? 20260101 : Number(process.env.KEDGE_SEED);
const RAW = 300;
const HELD_OPEN = 20;

describe(`fuzz: the embedded broker's port (seed ${SEED})`, () => {
  let cluster: Cluster<FakeClock> | undefined;
  const sockets = new Set<Socket>();
  const clients: MqttClient[] = [];

  afterEach(async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    await cluster?.stop();
    cluster = undefined;
  });

  const openSocket = (port: number): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = tcpConnect({ host: '127.0.0.1', port });
      sockets.add(socket);
      socket.on('error', () => undefined); // resets by the broker are expected
      socket.resume(); // read and drop whatever the broker answers, so its close is seen
      socket.once('connect', () => resolve(socket));
      socket.once('close', () => reject(new Error('closed before connecting')));
    });

  /** Sends each byte string on a fresh connection and half-closes it; waits until the broker has closed every one. */
  const hitAndClose = async (port: number, batch: readonly Buffer[]): Promise<void> => {
    const open = new Map<Socket, Buffer>();
    for (const bytes of batch) {
      const socket = await openSocket(port);
      open.set(socket, bytes);
      socket.once('close', () => {
        open.delete(socket);
        sockets.delete(socket);
      });
      socket.end(bytes);
    }
    const hung = (): string => [...open.values()].map((b) => `${b.length} bytes ${b.subarray(0, 24).toString('hex')}…`).join('; ');
    await waitFor(() => open.size === 0, 'the broker to close every connection', 5000).catch(() => {
      throw new Error(`the broker kept half-closed connections open: ${hung()}`);
    });
  };

  it(`${RAW} random byte strings on fresh connections, ${HELD_OPEN} stalled ones held open`, async () => {
    cluster = await Cluster.start({ transport: 'mqtt', clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    await startFirstPod(c, 'before');
    const port = Number(new URL(c.cloud.brokerUrl).port);
    const r = rand(SEED);

    // Stalled clients: a CONNECT cut short, then nothing.
    for (let i = 0; i < HELD_OPEN; i++) {
      const socket = await openSocket(port);
      const connect = connectPacket(`fz-held-${i}`, 'fz-node', c.cloud.credentials.edge);
      socket.write(connect.subarray(0, 1 + r.int(connect.length - 1)));
    }

    const payloads = rawPayloads(r, RAW, c.cloud.credentials.edge);
    expect(new Set(payloads.map((p) => p.kind)).size).toBe(5);
    for (let i = 0; i < payloads.length; i += 25) await hitAndClose(port, payloads.slice(i, i + 25).map((p) => p.bytes));

    // A legitimate client is still admitted and served while the stalled ones hang on.
    const probe = await connectAsync(c.cloud.brokerUrl, { clientId: 'fz-probe', username: 'fz-probe', password: c.cloud.credentials.edge, protocolVersion: 4, clean: true, reconnectPeriod: 0 });
    clients.push(probe);
    const granted = await probe.subscribeAsync(topics.down('fz-probe'), { qos: 1 });
    expect(granted.map((g) => g.qos)).toEqual([1]);

    expect(c.cloud.hub.brokerLink().up).toBe(true);
    for (const [node, edge] of c.edges) await eventually(c.clock, () => edge.hub.connectivity.connected, `${node} connected`);
    await eventually(c.clock, () => c.cloud.hub.connectedNodes().join() === 'edge-1,edge-2', 'both nodes connected at the hub');
    const after = await startFirstPod(c, 'after');
    expect(after.status?.podIP).toMatch(/^127\.\d+\.\d+\.\d+$/); // from its node's podCIDR
  });
});
