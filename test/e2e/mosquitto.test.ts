import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMosquittoConfig, type NodePassword } from '../../bin/commands/broker-config.js';
import { loadOrCreateCredentials, type Credentials } from '../../cloud/apiserver/auth/credentials.js';
import { CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import { hashPassword } from '../../cloud/hub/password-hash.js';
import { JOIN_NAMESPACE, nodeCredentialSecret } from '../../cloud/join/secrets.js';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { podsIn } from '../../edge/metamanager/local-cache.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import type { Node, Pod } from '../../shared/types.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';
import { MOSQUITTO, startMosquitto, type MosquittoProcess } from '../support/mosquitto.js';
import { waitFor } from '../support/wait.js';

if (!MOSQUITTO) console.warn('mosquitto is not installed (apt-get install -y mosquitto): the tests against a real Mosquitto are skipped');

const nodes: NodePassword[] = [
  { node: 'edge-a', password: 'password-a' },
  { node: 'edge-b', password: 'password-b' },
  { node: 'edge-1', password: 'password-1' },
  { node: 'edge-3', password: 'password-3' },
];
const passwordOf = (node: string): string => nodes.find((n) => n.node === node)!.password;

/** Mosquitto 2.0.11 configured by `kedge broker-config mosquitto`, one process for the whole file. */
describe.skipIf(!MOSQUITTO)('Mosquitto as the external broker', () => {
  let dir: string;
  let credentials: Credentials;
  let broker: MosquittoProcess;
  const clients: MqttClient[] = [];
  const configure = async (port: number): Promise<string> => {
    const { files } = await writeMosquittoConfig({ dataDir: join(dir, 'cloud'), out: join(dir, 'mosquitto'), port, host: '127.0.0.1', nodes }, () => undefined);
    // As root, Mosquitto would switch to the mosquitto user, who cannot read a private temp dir.
    if (process.getuid?.() === 0) await appendFile(files.conf, 'user root\n');
    return files.conf;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-mosquitto-'));
    credentials = await loadOrCreateCredentials(join(dir, 'cloud'));
    broker = await startMosquitto(configure);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    await broker?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const connect = async (username: string | undefined, password: string | undefined, extra: IClientOptions = {}): Promise<MqttClient> => {
    const client = await connectAsync(broker.url, {
      clientId: `test-${username ?? 'anonymous'}-${Math.random().toString(16).slice(2, 8)}`,
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
      protocolVersion: 4,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: 5_000,
      ...extra,
    });
    clients.push(client);
    return client;
  };
  const asCloud = (): Promise<MqttClient> => connect(CLOUD_USERNAME, credentials.hub);
  const asNode = (node: string): Promise<MqttClient> => connect(node, passwordOf(node));
  const record = (client: MqttClient): string[] => {
    const topicsSeen: string[] = [];
    client.on('message', (topic) => topicsSeen.push(topic));
    return topicsSeen;
  };

  describe('who may do what', () => {
    it('refuses anonymous clients and wrong passwords', async () => {
      await expect(connect(undefined, undefined)).rejects.toThrow(/not authorized|bad user ?name or password/i);
      await expect(connect('edge-a', 'password-b')).rejects.toThrow(/not authorized|bad user ?name or password/i);
      await expect(connect(CLOUD_USERNAME, credentials.edge)).rejects.toThrow(/not authorized|bad user ?name or password/i);
      await expect(connect(CLOUD_USERNAME, credentials.cloud)).rejects.toThrow(/not authorized|bad user ?name or password/i);
      await expect(connect('edge-9', 'password-a')).rejects.toThrow(/not authorized|bad user ?name or password/i);
    });

    it("keeps a node's messages off another node's topics", async () => {
      const cloud = await asCloud();
      const seen = record(cloud);
      await cloud.subscribeAsync('kedge/#', { qos: 1 });
      const a = await asNode('edge-a');
      for (const topic of [topics.up('edge-b'), topics.presence('edge-b'), topics.down('edge-b'), topics.down('edge-a'), topics.streamUp('edge-b'), topics.streamDown('edge-a'), 'elsewhere/edge-a']) {
        await a.publishAsync(topic, 'forged', { qos: 1 });
      }
      await a.publishAsync(topics.streamUp('edge-a'), 'frame', { qos: 1 });
      await a.publishAsync(topics.up('edge-a'), 'marker', { qos: 1 });
      await waitFor(() => seen.includes(topics.up('edge-a')), "edge-a's own message to reach the cloud");
      expect(seen).toEqual([topics.streamUp('edge-a'), topics.up('edge-a')]);
    });

    it('lets a node read nothing but its own down topic, however it subscribes', async () => {
      const a = await asNode('edge-a');
      const seen = record(a);
      // Mosquitto grants every one of these and then checks each message against the ACL (the
      // embedded broker refuses the subscription instead): what counts is what arrives.
      const granted = await a.subscribeAsync([topics.down('edge-a'), topics.streamDown('edge-a'), '#', topics.down('edge-b'), topics.up('edge-b'), 'kedge/v1/+/down', 'kedge/v1/+/stream-down'], { qos: 1 });
      expect(granted.find((g) => g.topic === topics.down('edge-a'))?.qos).toBe(1);
      const cloud = await asCloud();
      for (const topic of [topics.down('edge-b'), topics.up('edge-b'), topics.presence('edge-b'), topics.streamDown('edge-b'), topics.streamUp('edge-a'), 'elsewhere/edge-b']) {
        await cloud.publishAsync(topic, 'for someone else', { qos: 1 });
      }
      await cloud.publishAsync(topics.streamDown('edge-a'), 'frame', { qos: 1 });
      await cloud.publishAsync(topics.down('edge-a'), 'marker', { qos: 1 });
      await waitFor(() => seen.includes(topics.down('edge-a')), "edge-a's own down message");
      expect(new Set(seen)).toEqual(new Set([topics.streamDown('edge-a'), topics.down('edge-a')]));
    });

    it('lets the cloud publish and subscribe anywhere', async () => {
      const cloud = await asCloud();
      const seen = record(cloud);
      const granted = await cloud.subscribeAsync(['kedge/v1/+/up', 'kedge/v1/+/presence', 'elsewhere/#'], { qos: 1 });
      expect(granted.map((g) => g.qos)).toEqual([1, 1, 1]);
      const b = await asNode('edge-b');
      const atB = record(b);
      await b.subscribeAsync(topics.down('edge-b'), { qos: 1 });
      await cloud.publishAsync(topics.down('edge-b'), 'apply', { qos: 1 });
      for (const topic of [topics.up('edge-b'), topics.presence('edge-b'), 'elsewhere/x']) await cloud.publishAsync(topic, 'from the cloud', { qos: 1 });
      await waitFor(() => atB.length === 1 && seen.length === 3, 'every message delivered');
      expect(atB).toEqual([topics.down('edge-b')]);
      expect(seen).toEqual([topics.up('edge-b'), topics.presence('edge-b'), 'elsewhere/x']);
    });
  });

  describe('a cloud and an edge through Mosquitto', () => {
    const timing = scaleTiming(defaultTiming, 10);
    const ref = { resource: 'pods', namespace: 'default', name: 'hello' };
    let cloud: Cloud;
    let link: LinkProxy;
    let edge: EdgeHandle;

    beforeAll(async () => {
      cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, brokerUrl: broker.url, store: 'memory', timing, clock: realClock, logger: silentLogger });
      link = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: broker.port }, clock: realClock, logger: silentLogger });
      edge = await startEdge({
        nodeName: 'edge-1', brokerUrl: `mqtt://127.0.0.1:${link.port}`, token: passwordOf('edge-1'), dataDir: join(dir, 'edge-1'),
        localApiPort: null, timing, clock: realClock, logger: silentLogger, podCIDR: '127.32.1.0/24', // the cloud assigns no podCIDR
      });
    });
    afterAll(async () => {
      await edge?.stop();
      await link?.close();
      await cloud?.stop();
    });

    const readyOf = async (): Promise<string | undefined> => {
      const node = await cloud.api.get<Node>({ resource: 'nodes', name: 'edge-1' }).catch(() => undefined);
      return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    };
    const cloudPods = async (): Promise<Pod[]> => (await cloud.api.list<Pod>({ resource: 'pods', namespace: 'default' })).items;
    const running = (pod: Pod | undefined): boolean => pod?.status?.phase === 'Running' && pod.status.containerStatuses?.[0]?.ready === true;
    const containers = async (): Promise<ContainerInfo[]> => edge.runtime.listContainers();

    it('keeps the pod running on the edge through a cut longer than the grace period, and reconciles on heal', async () => {
      await waitFor(async () => (await readyOf()) === 'True', 'edge-1 Ready', 10_000, 20);
      await cloud.api.create<Pod>(ref, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hello' }, spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1' }] } });
      const scheduled = await waitFor(async () => {
        const pod = (await cloudPods())[0];
        return running(pod) && pod;
      }, 'hello Running', 10_000, 20);
      expect(scheduled.spec.nodeName).toBe('edge-1');
      const before = await containers();
      expect(before.map((c) => c.state)).toEqual(['running']);

      const cutAt = realClock.now();
      link.cut();
      await waitFor(() => !cloud.hub.connectedNodes().includes('edge-1'), 'the last will to reach the hub', 10_000, 20);
      await waitFor(async () => (await readyOf()) === 'Unknown', 'the cloud to mark edge-1 not ready', 10_000, 20);
      expect(realClock.now() - cutAt).toBeGreaterThan(timing.nodeMonitorGraceMs);
      expect(edge.hub.connectivity.connected).toBe(false);
      expect(await containers()).toEqual(before);
      expect(podsIn(edge.cache).map((p) => p.metadata.uid)).toEqual([scheduled.metadata.uid]);

      link.heal();
      await waitFor(async () => (await readyOf()) === 'True' && running((await cloudPods())[0]) && cloud.hub.connectedNodes().includes('edge-1'), 'edge-1 Ready with hello Running again', 10_000, 20);
      const after = await cloudPods();
      expect(after.map((p) => [p.metadata.uid, p.spec.nodeName])).toEqual([[scheduled.metadata.uid, 'edge-1']]);
      expect(after[0]!.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      expect(await containers()).toEqual(before);
      expect(podsIn(edge.cache).map((p) => p.metadata.uid)).toEqual([scheduled.metadata.uid]);
    });

    it('admits a node that joined the running cloud once the configuration is written again and reloaded', async () => {
      const api = cloud.api;
      await api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, nodeCredentialSecret({ node: 'edge-2', passwordHash: hashPassword('joined-password') }));
      await expect(connect('edge-2', 'joined-password')).rejects.toThrow(/not authorized|bad user ?name or password/i);

      const warnings: string[] = [];
      const { users } = await writeMosquittoConfig({ dataDir: join(dir, 'cloud'), out: join(dir, 'mosquitto'), port: broker.port, host: '127.0.0.1', nodes }, (w) => warnings.push(w));
      if (process.getuid?.() === 0) await appendFile(join(dir, 'mosquitto', 'mosquitto.conf'), 'user root\n');
      expect(warnings).toEqual([]);
      expect(users).toEqual([CLOUD_USERNAME, 'edge-2', ...nodes.map((n) => n.node)]);
      broker.reload();
      await waitFor(() => connect('edge-2', 'joined-password').then(() => true, () => false), 'edge-2 admitted', 5_000, 50);
      expect(edge.hub.connectivity.connected).toBe(true);
    });
  });

  describe('a cloud restarted while its edge stays connected to Mosquitto', () => {
    const timing = scaleTiming(defaultTiming, 10);
    const start = (): Promise<Cloud> => startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, brokerUrl: broker.url, store: 'durable', timing, clock: realClock, logger: silentLogger });
    let cloud: Cloud | undefined;
    let edge: EdgeHandle;

    beforeAll(async () => {
      cloud = await start();
      edge = await startEdge({ nodeName: 'edge-3', brokerUrl: broker.url, token: passwordOf('edge-3'), dataDir: join(dir, 'edge-3'), localApiPort: null, timing, clock: realClock, logger: silentLogger, podCIDR: '127.32.3.0/24' });
    });
    afterAll(async () => {
      await edge?.stop();
      await cloud?.stop();
    });

    const pod = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1' }] } });
    const runningPod = async (name: string): Promise<Pod | false> => {
      const found = await cloud!.api.get<Pod>({ resource: 'pods', namespace: 'default', name }).catch(() => undefined);
      return found?.status?.phase === 'Running' && found.spec.nodeName === 'edge-3' && found;
    };

    it('sends the edge what was bound to it after the restart, though the edge never reconnected', async () => {
      await waitFor(() => cloud!.hub.connectedNodes().includes('edge-3'), 'edge-3 connected', 10_000, 20);
      await cloud!.api.create({ resource: 'pods', namespace: 'default', name: 'first' }, pod('first'));
      const first = await waitFor(() => runningPod('first'), 'first Running', 10_000, 20);
      let hellos = 0;
      const counting = edge.hub.hellos$.subscribe(() => hellos++);

      await cloud!.stop();
      cloud = undefined;
      cloud = await start();
      await cloud.api.create({ resource: 'pods', namespace: 'default', name: 'second' }, pod('second'));
      await waitFor(() => runningPod('second'), 'second Running on edge-3', 10_000, 20);
      counting.unsubscribe();

      expect(hellos).toBe(0);
      expect(edge.hub.connectivity.connected).toBe(true);
      expect(await runningPod('first')).toMatchObject({ metadata: { uid: first.metadata.uid } });
      expect(podsIn(edge.cache).map((p) => p.metadata.name).sort()).toEqual(['first', 'second']);
      expect(cloud.hub.connectedNodes()).toEqual(['edge-3']);
    });
  });
});
