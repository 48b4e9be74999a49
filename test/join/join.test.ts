import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCa } from '../../cloud/apiserver/auth/tls-cert.js';
import { REFUSED } from '../../cloud/hub/broker.js';
import { JOIN_REFUSED } from '../../cloud/join/index.js';
import { bootstrapTokenSecret, JOIN_NAMESPACE, nodeCredentialName } from '../../cloud/join/secrets.js';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { API_REFUSED } from '../../cloud/metrics.js';
import { joinCloud, type EdgeCredential } from '../../edge/join.js';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import type { Secret } from '../../shared/config-types.js';
import { caFingerprint, formatJoinToken, newBootstrapToken } from '../../shared/join-token.js';
import { memoryLogger, silentLogger } from '../../shared/log.js';
import type { Node, Pod } from '../../shared/types.js';
import { eventually } from '../support/eventually.js';
import { waitFor } from '../support/wait.js';

const secrets = { resource: 'secrets', namespace: JOIN_NAMESPACE };
const isReady = (n: Node | undefined): boolean => n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const HOUR = 3_600_000;

/**
 * Edges joining a cloud that speaks only TLS: the token pins the CA, the edge gets its own
 * broker credential, and losing the token or the Node locks it out. Every refused input has
 * its counter.
 */
describe('joining a TLS-only cloud with a token', () => {
  const clock = new FakeClock(realClock.now());
  let dir: string;
  let cloud: Cloud;
  const edges: EdgeHandle[] = [];
  const log = memoryLogger('cloud');
  const logged = (text: string): boolean => log.lines.some((l) => l.includes(text));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-join-'));
    cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, mqttHost: '0.0.0.0', tlsOnly: true, store: 'memory', clock, logger: log });
  });
  afterAll(async () => {
    for (const e of edges) await e.stop();
    await cloud?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function newJoinToken(o: { node?: string; ttlMs?: number; caPem?: string } = {}): Promise<{ id: string; text: string }> {
    const { id, secret } = newBootstrapToken();
    await cloud.api.create(secrets, bootstrapTokenSecret({ id, secret, node: o.node, expires: clock.now() + (o.ttlMs ?? HOUR) }));
    return { id, text: formatJoinToken({ caHash: caFingerprint(o.caPem ?? cloud.caPem), id, secret }) };
  }
  const joinAs = (node: string, token: string): Promise<EdgeCredential> => joinCloud({ cloudUrl: cloud.apiUrl, token, node, dataDir: join(dir, node), logger: silentLogger });
  async function startJoined(node: string, credential: EdgeCredential): Promise<EdgeHandle> {
    // A --pod-cidr per edge: this cloud assigns nodes no podCIDR.
    const podCIDR = `127.32.${edges.length}.0/24`;
    const edge = await startEdge({ nodeName: node, brokerUrl: credential.brokerUrl, token: credential.password, ca: credential.caPem, dataDir: join(dir, node), localApiPort: null, clock, logger: silentLogger, random: () => 0.5, podCIDR });
    edges.push(edge);
    return edge;
  }
  const node = (name: string) => cloud.api.get<Node>({ resource: 'nodes', name }).catch(() => undefined);
  const credentialExists = (name: string) => cloud.api.get<Secret>({ ...secrets, name: nodeCredentialName(name) }).then(() => true, () => false);

  it('joins over TLS, keeps its credential private, and runs a pod', async () => {
    const token = await newJoinToken({ node: 'edge-1' });
    const credential = await joinAs('edge-1', token.text);
    expect(credential.brokerUrl).toMatch(/^mqtts:\/\/127\.0\.0\.1:\d+$/);
    expect((await stat(join(dir, 'edge-1', 'credential.json'))).mode & 0o777).toBe(0o600);
    for (const d of ['cloud', 'edge-1']) expect((await stat(join(dir, d))).mode & 0o777, `${d} is private`).toBe(0o700);
    expect(await joinAs('edge-1', token.text)).toEqual(credential); // a restart reuses it
    const edge = await startJoined('edge-1', credential);
    expect((await stat(join(dir, 'edge-1'))).mode & 0o777).toBe(0o700);
    await eventually(clock, async () => edge.hub.connectivity.connected && isReady(await node('edge-1')), 'edge-1 Ready');
    await cloud.api.create({ resource: 'pods', namespace: 'default' }, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { nodeName: 'edge-1', containers: [{ name: 'c', image: 'i' }] } });
    await eventually(clock, async () => (await cloud.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'p1' })).status?.phase === 'Running', 'p1 Running');
  });

  it('revoking the token disconnects the node and refuses it from then on', async () => {
    const token = await newJoinToken({ node: 'edge-2' });
    const edge = await startJoined('edge-2', await joinAs('edge-2', token.text));
    await eventually(clock, () => edge.hub.connectivity.connected, 'edge-2 connected');
    const refusedBefore = cloud.counters.get(REFUSED, { reason: 'bad-credentials' });
    await cloud.api.delete({ ...secrets, name: `bootstrap-token-${token.id}` });
    await eventually(clock, async () => !edge.hub.connectivity.connected && !(await credentialExists('edge-2')), 'edge-2 cut off');
    expect(cloud.counters.get(REFUSED, { reason: 'revoked' })).toBeGreaterThanOrEqual(1);
    await eventually(clock, () => cloud.counters.get(REFUSED, { reason: 'bad-credentials' }) > refusedBefore, 'its retry refused', { stepMs: 1000 });
    expect(edge.hub.connectivity.connected).toBe(false);
    await expect(joinAs('edge-2b', token.text)).rejects.toThrow(/unknown or revoked join token/);
    expect(logged('the credential of node edge-2 was revoked')).toBe(true);
    expect(edges[0]!.hub.connectivity.connected, 'edge-1 is not disturbed').toBe(true);
  });

  it('deleting the Node disconnects it, refuses it from then on, and its pods go after the grace period', async () => {
    const token = await newJoinToken();
    const edge = await startJoined('edge-3', await joinAs('edge-3', token.text));
    await eventually(clock, async () => edge.hub.connectivity.connected && isReady(await node('edge-3')), 'edge-3 Ready');
    const pods = { resource: 'pods', namespace: 'default' };
    await cloud.api.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-3' }, spec: { nodeName: 'edge-3', containers: [{ name: 'c', image: 'i' }] } });
    await eventually(clock, async () => (await cloud.api.get<Pod>({ ...pods, name: 'on-3' })).status?.phase === 'Running', 'on-3 Running');
    await cloud.api.delete({ resource: 'nodes', name: 'edge-3' });
    await eventually(clock, async () => !edge.hub.connectivity.connected && !(await credentialExists('edge-3')), 'edge-3 cut off');
    await clock.advance(60_000);
    expect(edge.hub.connectivity.connected).toBe(false);
    expect(await node('edge-3')).toBeUndefined();
    // The pod GC deletes the pods of a node gone for the grace period: their controllers replace them elsewhere.
    await eventually(clock, async () => (await cloud.api.list<Pod>(pods, { fieldSelector: 'spec.nodeName=edge-3' })).items.length === 0, 'on-3 deleted');
    expect(edges[0]!.hub.connectivity.connected, 'edge-1 is not disturbed').toBe(true);
  });

  it.each([
    ['an expired token', async () => (await newJoinToken({ ttlMs: 1000 })).text, 'n1', 'expired', /the join token expired at/, 2000],
    ['a token for another node', async () => (await newJoinToken({ node: 'someone-else' })).text, 'n2', 'wrong-node', /this join token is for node someone-else, not n2/, 0],
    ['an unknown token', async () => formatJoinToken({ caHash: caFingerprint(cloud.caPem), ...newBootstrapToken() }), 'n3', 'bad-token', /unknown or revoked join token/, 0],
  ])('refuses %s', async (_what, token, name, reason, message, waitMs) => {
    const text = await token();
    await clock.advance(waitMs);
    const before = cloud.counters.get(JOIN_REFUSED, { reason });
    await expect(joinAs(name, text)).rejects.toThrow(message);
    expect(cloud.counters.get(JOIN_REFUSED, { reason })).toBe(before + 1);
    expect(log.lines.filter((l) => l.includes('refused a join') && l.includes(`"reason":"${reason}"`)).length).toBe(before + 1);
  });

  it('refuses a cloud whose CA is not the one the token pins', async () => {
    const stranger = generateCa({ commonName: 'kedge-ca', now: clock.now() });
    const token = await newJoinToken({ caPem: stranger.certPem });
    await expect(joinAs('n4', token.text)).rejects.toThrow(/is not the one the token pins/);
    expect(await credentialExists('n4')).toBe(false);
  });

  it('an edge whose kept credential trusts another CA than the broker\'s says why it cannot connect', async () => {
    const credential = await joinAs('n5', (await newJoinToken({ node: 'n5' })).text);
    const stranger = generateCa({ commonName: 'kedge-ca', now: clock.now() });
    const edgeLog = memoryLogger('edge/n5');
    const edge = await startEdge({ nodeName: 'n5', brokerUrl: credential.brokerUrl, token: credential.password, ca: stranger.certPem, dataDir: join(dir, 'n5'), localApiPort: null, clock, logger: edgeLog, random: () => 0.5 });
    edges.push(edge);
    await waitFor(() => edgeLog.lines.some((l) => / ERROR \[edge\/n5\S*\] the broker's certificate is not signed by the CA this node trusts/.test(l)), 'the other-CA error', 10_000, 10);
    expect(edgeLog.lines.filter((l) => l.includes('mqtt error'))).toEqual([]);
  });

  it('answers plain HTTP on the API port with a 400, counted', async () => {
    const before = cloud.counters.get(API_REFUSED, { reason: 'plain-http' });
    const port = new URL(cloud.apiUrl).port;
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/version' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.on('error', reject).end();
    });
    expect(answer).toEqual({ status: 400, body: 'Client sent an HTTP request to an HTTPS server.\n' });
    expect(cloud.counters.get(API_REFUSED, { reason: 'plain-http' })).toBe(before + 1);
    expect(logged('refused a request: plain HTTP on the TLS-only API port')).toBe(true);
  });

  const outside = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  it.skipIf(!outside)('accepts the shared edge token only from this machine', async () => {
    const port = new URL(cloud.brokerUrl).port;
    const options = { clientId: 'edge-9', username: 'edge-9', password: cloud.credentials.edge, protocolVersion: 4 as const, reconnectPeriod: 0, ca: cloud.caPem, servername: 'localhost' };
    const local = await connectAsync(`mqtts://127.0.0.1:${port}`, options);
    await local.endAsync(true);
    const before = cloud.counters.get(REFUSED, { reason: 'bad-credentials' });
    await expect(connectAsync(`mqtts://${outside}:${port}`, { ...options, rejectUnauthorized: false })).rejects.toThrow(/Bad username or password/);
    expect(cloud.counters.get(REFUSED, { reason: 'bad-credentials' })).toBe(before + 1);
  });
});
