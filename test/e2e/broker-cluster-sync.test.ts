import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { podsIn } from '../../edge/metamanager/local-cache.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { startBrokerCluster, type BrokerCluster } from '../../sim/broker-cluster/cluster.js';
import { REDIS_SERVER } from '../../sim/broker-cluster/redis-server.js';
import { nodePasswords, writePasswordFile } from '../support/broker-cluster-users.js';
import { waitFor } from '../support/wait.js';

if (!REDIS_SERVER) throw new Error('redis-server is missing: apt-get install -y redis-server (CI installs it)');

describe('a cloud and an edge on a broker cluster, through the death of a member', () => {
  const timing = scaleTiming(defaultTiming, 10);
  let dir: string;
  let cluster: BrokerCluster | undefined;
  let cloud: Cloud | undefined;
  let edge: EdgeHandle | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-broker-cluster-sync-'));
    const credentials = await loadOrCreateCredentials(join(dir, 'cloud'));
    cluster = await startBrokerCluster({ members: 2, passwordFile: await writePasswordFile(dir, credentials.hub) });
    const [first, second] = cluster.members.map((m) => m.url);
    // The cloud starts on member 2, the edge on member 1: each tries its list in order.
    cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, brokerUrl: `${second},${first}`, store: 'memory', timing, clock: realClock, logger: silentLogger });
    edge = await startEdge({
      nodeName: 'edge-1', brokerUrl: `${first},${second}`, token: nodePasswords['edge-1']!, dataDir: join(dir, 'edge-1'), localApiPort: null, timing, clock: realClock, logger: silentLogger, podCIDR: '127.32.5.0/24',
    });
  });
  afterAll(async () => {
    await edge?.stop();
    await cloud?.stop();
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const pod = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: 'edge-1', containers: [{ name: 'main', image: 'kedge.io/hello:1' }] } });
  const running = async (name: string): Promise<boolean> => {
    const found = await cloud!.api.get<Pod>({ resource: 'pods', namespace: 'default', name }).catch(() => undefined);
    return found?.status?.phase === 'Running';
  };

  it('keeps syncing pods when the member the edge is on is killed', async () => {
    await waitFor(() => cloud!.hub.connectedNodes().includes('edge-1'), 'edge-1 connected through the cluster', 10_000, 20);
    await cloud!.api.create({ resource: 'pods', namespace: 'default', name: 'before' }, pod('before'));
    await waitFor(() => running('before'), 'before Running', 10_000, 20);

    await cluster!.members[0]!.process.kill();
    await waitFor(() => !edge!.hub.connectivity.connected, 'the edge cut off', 5_000, 10);
    await cloud!.api.create({ resource: 'pods', namespace: 'default', name: 'during' }, pod('during'));
    await waitFor(() => edge!.hub.connectivity.connected, 'the edge back, on member 2', 10_000, 10);
    await waitFor(() => running('during'), 'during Running', 10_000, 20);

    expect(podsIn(edge!.cache).map((p) => p.metadata.name).sort()).toEqual(['before', 'during']);
    expect(await running('before')).toBe(true);
  });
});
