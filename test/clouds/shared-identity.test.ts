import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiToken, newTokenEntry } from '../../cloud/apiserver/index.js';
import { IDENTITY_NAMESPACE, IDENTITY_SECRET } from '../../cloud/cluster-identity/identity-secret.js';
import { bootstrapTokenSecret, JOIN_NAMESPACE } from '../../cloud/join/secrets.js';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { joinCloud } from '../../edge/join.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { caFingerprint, formatJoinToken, newBootstrapToken } from '../../shared/join-token.js';
import { memoryLogger, silentLogger } from '../../shared/log.js';
import type { Lease } from '../../shared/config-types.js';
import type { Node } from '../../shared/types.js';
import { eventually } from '../support/eventually.js';
import { REFUSED } from '../../cloud/hub/broker.js';


/** GET `path` from `baseUrl` over TLS checked against `ca`, with a bearer token: the status. */
function httpsGet(baseUrl: string, path: string, ca: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject).end();
  });
}

interface Kubeconfig {
  clusters: { cluster: { 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}

/** Two clouds on one store serve one cluster: one CA, one set of credentials, the node credentials alike. */
describe('several clouds, one store: one identity', () => {
  const clock = new FakeClock(realClock.now());
  const store = new MemoryStore();
  const logs = [memoryLogger('cloud-1'), memoryLogger('cloud-2')];
  let dir: string;
  let clouds: Cloud[] = [];
  const options = (n: number, node = `cp-${n}`) => ({ dataDir: join(dir, `cloud-${n}`), apiPort: 0, mqttPort: 0, tlsOnly: true, store, clock, controlPlaneNode: node });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-clouds-'));
    for (const [i, logger] of logs.entries()) {
      clouds.push(await startCloud({ ...options(i + 1), logger }));
    }
  });
  afterAll(async () => {
    for (const c of clouds) await c.stop();
    clouds = [];
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the first cloud keeps its identity in the store; the second takes it and says so', () => {
    const [one, two] = clouds as [Cloud, Cloud];
    expect(two.credentials).toEqual(one.credentials);
    expect(two.caPem).toBe(one.caPem);
    expect(logs[0]!.lines.some((l) => l.includes(`kept this data dir's CA and credentials in the store as ${IDENTITY_NAMESPACE}/${IDENTITY_SECRET}`))).toBe(true);
    expect(logs[1]!.lines.some((l) => l.includes("took the cluster's CA and credentials from the store"))).toBe(true);
  });

  it("a kubeconfig from one cloud works against the other (its CA signed the other's certificate)", async () => {
    const kubeconfig = parse(await readFile(clouds[0]!.kubeconfigPath, 'utf8')) as Kubeconfig;
    const ca = Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString('utf8');
    for (const cloud of clouds) expect(await httpsGet(cloud.apiUrl, '/api/v1/namespaces', ca, kubeconfig.users[0]!.user.token)).toBe(200);
  });

  it("an edge credential got by joining through one cloud names every cloud's broker and is accepted by the other's (which, standing by, does not admit nodes)", async () => {
    const { id, secret } = newBootstrapToken();
    await clouds[0]!.api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, bootstrapTokenSecret({ id, secret, node: 'edge-1' }));
    const token = formatJoinToken({ caHash: caFingerprint(clouds[0]!.caPem), id, secret });
    const credential = await joinCloud({ cloudUrl: clouds[0]!.apiUrl, token, node: 'edge-1', dataDir: join(dir, 'edge-1'), logger: silentLogger });
    expect(credential.brokerUrl).toBe(`${clouds[0]!.brokerUrl},${clouds[1]!.brokerUrl}`);
    const connect = (cloud: Cloud) => connectAsync(cloud.brokerUrl, { clientId: 'edge-1', username: 'edge-1', password: credential.password, ca: credential.caPem, protocolVersion: 4, reconnectPeriod: 0 });
    // The second cloud's hub stands by: its broker takes the credential, then refuses the node for now.
    await expect(connect(clouds[1]!)).rejects.toThrow(/Server unavailable/);
    expect(['nodes-not-admitted', 'bad-credentials'].map((reason) => clouds[1]!.counters.get(REFUSED, { reason }))).toEqual([1, 0]);
    const client = await connect(clouds[0]!);
    expect(client.connected).toBe(true);
    await client.endAsync(true);
  });

  it('viewers and nodes cannot read the shared identity; admins can', async () => {
    const viewer = newTokenEntry('viewer', { name: 'alice' });
    const node = newTokenEntry('node', { node: 'edge-1' });
    for (const entry of [viewer, node]) await addApiToken(join(dir, 'cloud-2'), entry);
    const cloud = clouds[1]!;
    // Added tokens are read again on the clock (token-reload.ts): it moves while the request waits.
    const get = async (path: string, token: string): Promise<number> => {
      let status: number | undefined;
      const answer = httpsGet(cloud.apiUrl, path, cloud.caPem, token).then((s) => (status = s));
      await eventually(clock, () => status !== undefined, `the answer to GET ${path}`);
      return answer;
    };
    const path = `/api/v1/namespaces/${IDENTITY_NAMESPACE}/secrets/${IDENTITY_SECRET}`;
    expect(await get(path, viewer.token)).toBe(403);
    expect(await get(`/api/v1/namespaces/${IDENTITY_NAMESPACE}/secrets`, viewer.token)).toBe(403);
    expect(await get(path, node.token)).toBe(403);
    expect(await get(path, cloud.credentials.admin)).toBe(200);
    expect(await get('/api/v1/namespaces', viewer.token), 'the viewer is known: refused the Secrets only').toBe(200);
  });

  it("refuses a cloud under another running cloud's node name, saying so; the same cloud restarting takes its own", async () => {
    await expect(startCloud({ ...options(3, 'cp-1'), logger: silentLogger })).rejects.toThrow(
      /^node name cp-1 is held by another running cloud \(.*:.*cloud-1: its Lease kube-node-lease\/cp-1 was renewed \d+ s ago, for 40 s\): give each cloud its own --node-name, e\.g\. --node-name "\$\(hostname\)"$/,
    );
    await clouds[1]!.stop();
    clouds[1] = await startCloud({ ...options(2), logger: silentLogger });
    for (const name of ['cp-1', 'cp-2']) {
      const node = await clouds[1].api.get<Node>({ resource: 'nodes', name });
      const lease = await clouds[1].api.get<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease', name });
      expect(lease.metadata.ownerReferences?.[0]?.uid, 'a Lease claimed before its Node goes with it').toBe(node.metadata.uid);
    }
  });

  it("writes the cluster's identity into each data dir, so a restart and kedge token read it there", async () => {
    const [one, two] = await Promise.all(['cloud-1', 'cloud-2'].map((d) => readFile(join(dir, d, 'tokens.json'), 'utf8').then((t) => JSON.parse(t) as Record<string, unknown>)));
    expect({ ...two, tokens: undefined }).toEqual({ ...one, tokens: undefined });
    expect(await readFile(join(dir, 'cloud-2', 'ca.key'), 'utf8')).toBe(await readFile(join(dir, 'cloud-1', 'ca.key'), 'utf8'));
  });
});
