import { connect as tcpConnect, type Socket } from 'node:net';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED, startBroker, type Authenticate, type BrokerHandle } from '../../cloud/hub/broker.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import { connectPacket } from '../fuzz/payloads.js';
import { waitFor } from '../support/wait.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two', 'kedge-cloud-x': 'x' };
const HUB_ID = 'kedge-cloud-3f2a9c1e';

/**
 * MQTT client ids belong to credentials: a node connects with its node name, the hub with
 * kedge-cloud-<epoch>. A connection with another identity's client id is refused at CONNECT
 * (CONNACK 2), counted and logged; the rightful owner stays connected.
 */
describe('broker: client ids belong to credentials', () => {
  let broker: BrokerHandle;
  let counters: Counters;
  let log: ReturnType<typeof memoryLogger>;
  const revoked = new Subject<string>();
  const clients: MqttClient[] = [];
  const sockets: Socket[] = [];

  async function start(authenticate: Authenticate = (u, p) => passwords[u] !== undefined && passwords[u] === p): Promise<void> {
    counters = new Counters();
    log = memoryLogger('broker');
    broker = await startBroker({ port: 0, authenticate, logger: log, counters, clock: new FakeClock(), nodesWaitForCloud: true, revoked$: revoked });
  }
  const connect = async (clientId: string, username: string, password = passwords[username] ?? '', extra: IClientOptions = {}): Promise<MqttClient> => {
    const c = await connectAsync(broker.url, { clientId, username, password, protocolVersion: 4, reconnectPeriod: 0, ...extra });
    clients.push(c);
    return c;
  };
  const closes = (c: MqttClient): { count: number } => {
    const seen = { count: 0 };
    c.on('close', () => seen.count++);
    return seen;
  };
  /** The hub listening to every node, and edge-2 on its down topic; checks both still talk. */
  async function owners(): Promise<{ hub: MqttClient; edge2: MqttClient; check: () => Promise<void> }> {
    const hub = await connect(HUB_ID, 'kedge-cloud');
    await hub.subscribeAsync([topics.allUp, topics.allPresence], { qos: 1 });
    const edge2 = await connect('edge-2', 'edge-2');
    await edge2.subscribeAsync(topics.down('edge-2'), { qos: 1 });
    const atHub: string[] = [];
    const atEdge: string[] = [];
    hub.on('message', (_t, p) => atHub.push(p.toString()));
    edge2.on('message', (_t, p) => atEdge.push(p.toString()));
    const check = async (): Promise<void> => {
      const word = `ping ${atHub.length}`;
      await edge2.publishAsync(topics.up('edge-2'), word, { qos: 1 });
      await hub.publishAsync(topics.down('edge-2'), word, { qos: 1 });
      await waitFor(() => atHub.includes(word) && atEdge.includes(word), 'the hub and edge-2 still talk');
    };
    return { hub, edge2, check };
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    for (const s of sockets.splice(0)) s.destroy();
    await broker.close();
  });

  it("edge-1 with edge-2's client id is refused, and edge-2 is never kicked", async () => {
    await start();
    const { hub, edge2, check } = await owners();
    const hubCloses = closes(hub);
    const edge2Closes = closes(edge2);
    for (let i = 0; i < 10; i++) await expect(connect('edge-2', 'edge-1')).rejects.toThrow(/Identifier rejected/);
    await check();
    expect(edge2Closes.count + hubCloses.count).toBe(0);
    expect(counters.get(REFUSED, { reason: 'client-id' })).toBe(10);
    const lines = log.lines.filter((l) => l.includes('broker refused a client'));
    expect(lines).toHaveLength(1); // sampled
    expect(lines[0]).toContain('client id "edge-2" does not belong to node edge-1, which connects as edge-1');
  });

  it("nobody but the cloud takes the hub's client id: the hub stays, and so does every node", async () => {
    await start();
    const { hub, edge2, check } = await owners();
    const dropped = closes(hub);
    const edge2Closes = closes(edge2);
    for (let i = 0; i < 5; i++) await expect(connect(HUB_ID, 'edge-1')).rejects.toThrow(/Identifier rejected/);
    await check();
    expect(dropped.count + edge2Closes.count).toBe(0);
    expect(counters.get(REFUSED, { reason: 'client-id' })).toBe(5);
  });

  it('a node connects with its node name only, and no node may use a cloud client id', async () => {
    await start();
    await owners();
    await expect(connect('edge-1-second', 'edge-1')).rejects.toThrow(/Identifier rejected/);
    await expect(connect('', 'edge-1', 'one', { clean: true })).rejects.toThrow(/Identifier rejected/); // the broker would name it aedes_<uuid>
    await expect(connect('edge-2', 'kedge-cloud')).rejects.toThrow(/Identifier rejected/); // the cloud only as kedge-cloud-…
    expect(counters.get(REFUSED, { reason: 'client-id' })).toBe(3);
    // No node may be named like the cloud's client ids: such a user is nobody.
    await expect(connect('kedge-cloud-x', 'kedge-cloud-x')).rejects.toThrow(/Bad username or password/);
    const edge1 = await connect('edge-1', 'edge-1');
    expect(edge1.connected).toBe(true);
  });

  it('leaves no stale entry: the owner still takes over its own session, a revocation finds only live ones', async () => {
    await start();
    const { hub, edge2 } = await owners();
    for (let i = 0; i < 3; i++) await expect(connect('edge-2', 'edge-1')).rejects.toThrow(/Identifier rejected/);
    revoked.next('edge-1');
    expect(counters.get(REFUSED, { reason: 'revoked' })).toBe(0);
    // edge-2 restarts: its new connection takes over the old one, which the broker closes.
    const oldGone = new Promise<void>((r) => edge2.once('close', () => r()));
    const again = await connect('edge-2', 'edge-2');
    await oldGone;
    const heard: string[] = [];
    hub.on('message', (_t, p) => heard.push(p.toString()));
    await again.publishAsync(topics.up('edge-2'), 'after restart', { qos: 1 });
    await waitFor(() => heard.includes('after restart'), 'the hub hears the restarted edge-2');
  });

  it('a restarted node takes over its half-open connection at once, without waiting for its keepalive', async () => {
    await start();
    await owners();
    const halfOpen = tcpConnect(broker.port, '127.0.0.1');
    sockets.push(halfOpen);
    halfOpen.on('error', () => {});
    halfOpen.resume();
    await new Promise((r) => halfOpen.once('connect', r));
    halfOpen.write(connectPacket('edge-1', 'edge-1', 'one'));
    await waitFor(() => counters.total(REFUSED) === 0 && halfOpen.bytesRead >= 4, 'the first session admitted (CONNACK)');
    const closed = new Promise<void>((r) => halfOpen.once('close', () => r()));
    const restarted = await connect('edge-1', 'edge-1');
    await closed;
    expect(restarted.connected).toBe(true);
    expect(counters.total(REFUSED)).toBe(0);
  });

  it('with the shared loopback edge token the user name is the node name, and so is the client id', async () => {
    await start((u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'edge-token' && 'node'));
    await owners().catch(() => undefined); // edge-2's password is not the token here
    const edge5 = await connect('edge-5', 'edge-5', 'edge-token');
    expect(edge5.connected).toBe(true);
    await expect(connect('edge-6', 'edge-5', 'edge-token')).rejects.toThrow(/Identifier rejected/);
    expect(edge5.connected).toBe(true);
  });
});
