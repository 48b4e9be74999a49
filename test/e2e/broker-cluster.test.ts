import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOUD_USERNAME, cloudClientId } from '../../cloud/hub/acl.js';
import { topics } from '../../shared/protocol/topics.js';
import { REDIS_SERVER } from '../../sim/broker-cluster/redis-server.js';
import { startBrokerCluster, type BrokerCluster } from '../../sim/broker-cluster/cluster.js';
import { CLOUD_PASSWORD, nodePasswords, writePasswordFile } from '../support/broker-cluster-users.js';
import { waitFor } from '../support/wait.js';

if (!REDIS_SERVER) throw new Error('redis-server is missing: apt-get install -y redis-server (CI installs it)');

/** Real processes and redis on a shared machine: waits allow for a busy one. */
const DELIVERY_MS = 20_000;

describe('a broker cluster of two kedge broker members on one redis-server', { timeout: 90_000 }, () => {
  let dir: string;
  let cluster: BrokerCluster;
  const clients: MqttClient[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-broker-cluster-'));
    cluster = await startBrokerCluster({ members: 2, passwordFile: await writePasswordFile(dir) });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true).catch(() => undefined)));
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const connect = async (member: number, username: string, password: string, extra: IClientOptions = {}): Promise<MqttClient> => {
    const client = await connectAsync(cluster.members[member]!.url, {
      clientId: username === CLOUD_USERNAME ? cloudClientId('test') : username,
      username, password, protocolVersion: 4, clean: true, reconnectPeriod: 0, connectTimeout: 5_000, keepalive: 10, ...extra,
    });
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };
  const asCloud = (member: number, extra?: IClientOptions): Promise<MqttClient> => connect(member, CLOUD_USERNAME, CLOUD_PASSWORD, extra);
  const asNode = (member: number, node: string, extra?: IClientOptions): Promise<MqttClient> => connect(member, node, nodePasswords[node]!, extra);
  const received = (client: MqttClient): string[] => {
    const seen: string[] = [];
    client.on('message', (topic, payload) => seen.push(`${topic} ${payload.toString()}`));
    return seen;
  };

  it('carries QoS 1 messages between clients on different members, both ways', async () => {
    const cloud = await asCloud(0);
    const edge = await asNode(1, 'edge-1');
    const atCloud = received(cloud);
    const atEdge = received(edge);
    await cloud.subscribeAsync(topics.allUp, { qos: 1 });
    await edge.subscribeAsync(topics.down('edge-1'), { qos: 1 });
    await cloud.publishAsync(topics.down('edge-1'), 'to the edge', { qos: 1 });
    await edge.publishAsync(topics.up('edge-1'), 'to the cloud', { qos: 1 });
    await waitFor(() => atEdge.length > 0 && atCloud.length > 0, 'both messages', DELIVERY_MS);
    expect(atEdge).toEqual([`${topics.down('edge-1')} to the edge`]);
    expect(atCloud).toEqual([`${topics.up('edge-1')} to the cloud`]);
  });

  it('keeps retained presence for a subscriber on another member', async () => {
    const edge = await asNode(0, 'edge-1');
    await edge.publishAsync(topics.presence('edge-1'), 'online', { qos: 1, retain: true });
    const cloud = await asCloud(1);
    const atCloud = received(cloud);
    await cloud.subscribeAsync(topics.allPresence, { qos: 1 });
    await waitFor(() => atCloud.length > 0, 'the retained presence', DELIVERY_MS);
    // QoS 1 is at least once: a publish still crossing redis as the subscription lands may also come live.
    expect(new Set(atCloud)).toEqual(new Set([`${topics.presence('edge-1')} online`]));
  });

  it('admits and confines as the embedded broker: credentials from the password file, own client ids, own topics', async () => {
    await expect(connect(0, 'edge-1', 'password-2')).rejects.toThrow(/bad user ?name or password|not authorized/i);
    await expect(connect(0, 'edge-1', nodePasswords['edge-1']!, { clientId: 'edge-2' })).rejects.toThrow(/identifier rejected|does not belong/i);
    const edge = await asNode(1, 'edge-1');
    expect((await edge.subscribeAsync(topics.down('edge-1'), { qos: 1 })).map((g) => g.qos)).toEqual([1]);
    await expect(edge.subscribeAsync(topics.down('edge-2'), { qos: 1 })).rejects.toThrow(/Subscribe error/); // SUBACK 0x80
  });

  it('delivers what was acknowledged while the subscriber\'s member was dead, once it is back on the other member', async () => {
    const persistent = { clean: false };
    const edge = await asNode(0, 'edge-2', persistent);
    await edge.subscribeAsync(topics.down('edge-2'), { qos: 1 });
    const cloud = await asCloud(1);
    await cluster.members[0]!.process.kill();
    await waitFor(() => !edge.connected, 'the edge cut off', DELIVERY_MS);
    const sent = ['one', 'two', 'three'];
    for (const text of sent) await cloud.publishAsync(topics.down('edge-2'), text, { qos: 1 }); // each acknowledged by member 2
    const back = await asNode(1, 'edge-2', persistent);
    const atEdge = received(back);
    await waitFor(() => sent.every((text) => atEdge.includes(`${topics.down('edge-2')} ${text}`)), 'every acknowledged message', DELIVERY_MS);
  });
});
