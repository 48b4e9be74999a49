import type { ChildProcess } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { addApiToken, newTokenEntry } from '../../cloud/apiserver/auth/token-file.js';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Lease } from '../../shared/config-types.js';
import type { Pod } from '../../shared/types.js';
import { eventually } from '../support/eventually.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { pass } from '../support/settle.js';
import { shellSession } from '../streams/stream-test-runtime.js';

const web: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'kedge.io/web:1' }] } };
const settled = (p: Promise<unknown>): Promise<boolean> => Promise.race([p.then(() => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]);
const LOG_PATH = '/api/v1/namespaces/default/pods/web/log';

/** Two clouds on one store: the standby's API serves pods' logs and exec through the cloud whose hub leads. */
describe("a standby cloud forwards pods' logs and streams to the hub's leader", () => {
  const clock = new FakeClock(realClock.now());
  const clouds: Cloud[] = [];
  const children: ChildProcess[] = [];
  let edge: EdgeHandle | undefined;
  let store: MemoryStore | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await edge?.stop();
    edge = undefined;
    for (const cloud of clouds.splice(0)) await cloud.stop();
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The leader `a` (its hub serves edge-1, which runs `web`) and the standby `b`. */
  const twoCloudsWithPod = async (): Promise<[Cloud, Cloud]> => {
    store = new MemoryStore();
    dir = await mkdtemp(join(tmpdir(), 'kedge-hub-forward-'));
    for (const n of [0, 1]) clouds.push(await startCloud({ dataDir: join(dir, `cloud-${n}`), apiPort: 0, mqttPort: 0, store, clock, logger: silentLogger }));
    const [a, b] = clouds as [Cloud, Cloud];
    edge = await startEdge({
      nodeName: 'edge-1', brokerUrl: `${a.brokerUrl},${b.brokerUrl}`, token: a.credentials.edge, dataDir: join(dir, 'edge-1'),
      localApiPort: 0, clock, timing: defaultTiming, logger: silentLogger, random: () => 0.5, networkPlugin: 'memory', podCIDR: '10.244.1.0/24',
    });
    await eventually(clock, () => a.hub.connectedNodes().includes('edge-1'), "the edge at the leader's hub", { wallTimeoutMs: 30_000 });
    await a.api.create({ resource: 'pods', namespace: 'default' }, web);
    await eventually(clock, async () => (await a.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'web' })).status?.phase === 'Running', 'web Running', { wallTimeoutMs: 30_000 });
    (edge.runtime as Runtime).execStream = async (_id, command, options) => shellSession(command[command.length - 1]!, options, children);
    return [a, b];
  };
  const get = async (cloud: Cloud, path: string, token: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${cloud.apiUrl.replace(/^https:/, 'http:')}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    return { status: res.status, text: await res.text() };
  };

  /** A WebSocket upgrade refused: its status and body. */
  const upgradeStatus = (cloud: Cloud, path: string, token: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const headers = { authorization: `Bearer ${token}`, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': 'v5.channel.k8s.io' };
      const req = httpGet(`${cloud.apiUrl.replace(/^https:/, 'http:')}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c)).once('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
      });
      req.once('upgrade', (res, socket) => (socket.destroy(), resolve({ status: res.statusCode!, text: '' })));
      req.once('error', reject);
    });

  it("serves logs and usage through the standby from the leader's hub; a forwarded request to a standby is refused; a viewer stays Forbidden", async () => {
    const [a, b] = await twoCloudsWithPod();
    await pass(clock, 60_000, 1_000);
    const direct = await b.hub.podLogs('edge-1', { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u' }, {}).catch((e: unknown) => e as Error);
    expect((direct as Error).message).toMatch(/standby/); // the standby's own hub serves nothing
    const hubLease = await b.api.get<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-system', name: 'kedge-hub' });
    expect(hubLease.metadata.annotations).toEqual({ 'kedge.io/api-url': a.apiUrl }); // the holder's API, on one machine its loopback URL

    const log = await get(b, `${LOG_PATH}?tailLines=1`, b.credentials.admin);
    expect(log).toEqual({ status: 200, text: '[kedge sim] app: running for 1m\n' });
    expect(await get(b, `${LOG_PATH}?container=nope`, b.credentials.admin)).toMatchObject({ status: 400 });
    const top = await get(b, '/apis/metrics.k8s.io/v1beta1/nodes', b.credentials.admin); // kubectl top node
    expect([top.status, JSON.parse(top.text).items.map((m: { metadata: { name: string } }) => m.metadata.name)]).toEqual([200, ['edge-1']]);

    const looped = await get(b, LOG_PATH, b.credentials.admin, { 'x-kedge-forwarded': '1' });
    expect(looped.status).toBe(503);
    expect(JSON.parse(looped.text).message).toBe(`this cloud's hub is standby: the cloud "${a.hubLeader()}" serves the edges: a forwarded request is not forwarded again`);

    const viewer = newTokenEntry('viewer');
    await addApiToken(join(dir!, 'cloud-1'), viewer);
    const asViewer = upgradeStatus(b, `/api/v1/namespaces/default/pods/web/exec?command=true&stdout=true`, viewer.token);
    await eventually(clock, () => settled(asViewer), 'the token file re-read (at most once a second)', { wallTimeoutMs: 10_000 });
    const refused = await asViewer;
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).message).toBe('pods "web" is forbidden: User "kedge-viewer" cannot create resource "pods/exec" in API group "" in the namespace "default"');
  });

  it('answers 503 with the reason when the leader does not answer', async () => {
    const [a, b] = await twoCloudsWithPod();
    const leader = a.hubLeader();
    // As kill -9: the store cut first, so the Lease still names the gone leader.
    await a.components.stop('store');
    await a.stop();
    clouds.splice(clouds.indexOf(a), 1);
    const log = await get(b, LOG_PATH, b.credentials.admin);
    expect(log.status).toBe(503);
    expect(JSON.parse(log.text).message).toMatch(new RegExp(`^this cloud's hub is standby: the cloud "${leader}" serves the edges: its API at https://127\\.0\\.0\\.1:\\d+ does not answer: connect ECONNREFUSED`));
    const exec = await upgradeStatus(b, '/api/v1/namespaces/default/pods/web/exec?command=true&stdout=true', b.credentials.admin);
    expect([exec.status, JSON.parse(exec.text).message]).toEqual([503, expect.stringMatching(/does not answer: connect ECONNREFUSED/)]);
  });

  it('sends nothing of an exec through the standby before the client has answered a ping: no burst of 101, output and close', async () => {
    const [, b] = await twoCloudsWithPod();
    const url = `${b.apiUrl.replace(/^https:/, 'ws:')}/api/v1/namespaces/default/pods/web/exec?command=sh&command=-c&command=echo+hi&container=app&stdout=true`;
    const ws = new WebSocket(url, ['v5.channel.k8s.io'], { headers: { authorization: `Bearer ${b.credentials.admin}` }, autoPong: false });
    const heard: string[] = [];
    ws.on('message', (data: Buffer) => heard.push(`${data[0]}:${data.subarray(1).toString()}`));
    const first = await new Promise((resolve, reject) => {
      ws.once('ping', () => resolve('ping'));
      ws.once('message', () => resolve('message'));
      ws.once('error', reject);
    });
    expect([first, heard]).toEqual(['ping', []]);
    ws.pong();
    const code = await new Promise((resolve) => ws.once('close', resolve));
    expect([heard, code]).toEqual([['1:', '1:hi\n', '3:{"metadata":{},"status":"Success"}'], 1000]);
  });

  it.runIf(hasKubectl)('kubectl exec and logs through the standby reach the pod via the leader', async () => {
    const [, b] = await twoCloudsWithPod();
    const home = join(dir!, 'home');
    const kubectl = kubectlIn(home, b.kubeconfigPath);
    const exec = await kubectl('exec', 'web', '--', 'sh', '-c', 'echo hello from $0; echo oops >&2; exit 3');
    expect([exec.code, exec.stdout, exec.stderr]).toEqual([3, 'hello from sh\n', 'oops\ncommand terminated with exit code 3\n']);
    const logs = await kubectl('logs', 'web');
    expect([logs.code, logs.stdout]).toEqual([0, expect.stringContaining('[kedge sim] app')]);
  });
});
