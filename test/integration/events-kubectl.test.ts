import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeSuffix, type KubeEvent } from '../../cloud/controllers/events.js';
import { realClock, wallDelay } from '../../shared/clock.js';
import { encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type EdgeEvent, type UpDraft } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Transport } from '../../shared/transport.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { node } from '../support/api-fixture.js';
import { hasKubectl, KUBECTL, kubectlIn, type Run } from '../support/kubectl.js';

const NODE = 'edge-2';
const columns = (line: string | undefined): string[] => (line ?? '').trim().split(/\s{2,}/);

/** Polls `check` on the wall clock (the cluster runs on the real one, as kubectl does). */
async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 15_000): Promise<T> {
  for (const deadline = realClock.now() + ms; realClock.now() < deadline; await wallDelay(50)) {
    const value = await check();
    if (value) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The real kubectl reading Events: the scheduler's Scheduled and what a node reports over MQTT
 * (hand-made `event` messages from a stand-in for node edge-2, through the hub), by field
 * selector, sorted, in `kubectl describe pod`, and watched.
 */
describe.skipIf(!hasKubectl)('kubectl get and describe Events', () => {
  let cluster: Cluster | undefined;
  let home: string;
  let edge: Transport;
  let pod: Pod;
  /** When nginx was bound, near enough: what edge-2 reports comes after. */
  let boundAt: number;
  const stamper = new EnvelopeStamper(NODE, 'e1');
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(home, cluster!.cloud.kubeconfigPath)(...args);
  const send = (draft: UpDraft): Promise<void> => edge.publish(topics.up(NODE), Buffer.from(encode(stamper.stamp(draft))));
  const events = async (): Promise<KubeEvent[]> => (await cluster!.api.list<KubeEvent>({ resource: 'events', namespace: 'default' })).items;
  /** What the kubelet on edge-2 reports about nginx's container, `afterMs` after the pod was bound. */
  const report = async (reason: string, message: string, afterMs: number, count = 1): Promise<EdgeEvent> => {
    const at = boundAt + afterMs;
    const body: EdgeEvent = {
      name: `nginx.${timeSuffix(at, 0)}`, reason, message, type: 'Normal', count,
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'nginx', uid: pod.metadata.uid!, fieldPath: 'spec.containers{nginx}' },
      firstTimestamp: new Date(at).toISOString(), lastTimestamp: new Date(at).toISOString(),
    };
    await send({ type: 'event', body });
    return body;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kedge-events-'));
    cluster = await Cluster.start({ transport: 'memory', clock: realClock, nodes: 0 });
    edge = cluster.transport({ clientId: NODE, username: NODE, password: cluster.cloud.credentials.edge });
    edge.start({ subscriptions: [topics.down(NODE)] });
    await until(async () => edge.connectivity.connected, 'the stand-in for edge-2 connected');
    const ready = node(NODE);
    ready.status!.allocatable = { cpu: '4', memory: '8Gi', pods: '110' };
    await send({ type: 'hello', body: { bootId: 'b', holds: [] } });
    await send({ type: 'nodeStatus', body: ready });
    await until(async () => (await cluster!.api.list<Node>({ resource: 'nodes' })).items.length === 1, 'edge-2 registered');
    expect(await kubectl('run', 'nginx', '--image=nginx')).toMatchObject({ code: 0, stdout: 'pod/nginx created\n' });
    pod = await until(async () => {
      const p = await cluster!.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'nginx' });
      return p.spec.nodeName === NODE && p;
    }, 'nginx bound to edge-2');
    boundAt = realClock.now() + 1;
    await report('Pulling', 'Pulling image "nginx"', 0);
    await report('Pulled', 'Container image "nginx" already present on machine', 100);
    await report('Created', 'Created container: nginx', 200);
    await report('Started', 'Started container nginx', 300);
    await until(async () => (await events()).length === 5, 'Scheduled and four Events from edge-2');
  });
  afterAll(async () => {
    await edge?.close();
    await cluster?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('get events --field-selector involvedObject.name=nginx lists them in order of time', async () => {
    const r = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=nginx');
    expect(r.stderr).toBe('');
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(columns(header)).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(rows.map((row) => columns(row).slice(1))).toEqual([
      ['Normal', 'Scheduled', 'pod/nginx', 'Successfully assigned default/nginx to edge-2'],
      ['Normal', 'Pulling', 'pod/nginx', 'Pulling image "nginx"'],
      ['Normal', 'Pulled', 'pod/nginx', 'Container image "nginx" already present on machine'],
      ['Normal', 'Created', 'pod/nginx', 'Created container: nginx'],
      ['Normal', 'Started', 'pod/nginx', 'Started container nginx'],
    ]);
    const wide = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=nginx,reason=Started', '-o', 'wide');
    expect(columns(wide.stdout.trim().split('\n')[1])).toEqual([expect.stringMatching(/s$/), 'Normal', 'Started', 'pod/nginx', 'spec.containers{nginx}', 'kubelet, edge-2', 'Started container nginx', expect.stringMatching(/s$/), '1', expect.stringMatching(/^nginx\.[0-9a-f]{16}$/)]);
  });

  it('get events --sort-by=.lastTimestamp sorts them by time', async () => {
    const r = await kubectl('get', 'events', '--sort-by=.lastTimestamp', '-o', 'custom-columns=REASON:.reason,SOURCE:.source.component');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n').map(columns)).toEqual([['REASON', 'SOURCE'], ['Scheduled', 'default-scheduler'], ['Pulling', 'kubelet'], ['Pulled', 'kubelet'], ['Created', 'kubelet'], ['Started', 'kubelet']]);
  });

  it("describe pod nginx ends with the pod's Events", async () => {
    const r = await kubectl('describe', 'pod', 'nginx');
    expect(r.stderr).toBe('');
    const tail = r.stdout.slice(r.stdout.lastIndexOf('Events:')).trim().split('\n');
    expect(columns(tail[1])).toEqual(['Type', 'Reason', 'Age', 'From', 'Message']);
    expect(tail.slice(3).map((row) => columns(row).filter((_, i) => i !== 2))).toEqual([
      ['Normal', 'Scheduled', 'default-scheduler', 'Successfully assigned default/nginx to edge-2'],
      ['Normal', 'Pulling', 'kubelet', 'Pulling image "nginx"'],
      ['Normal', 'Pulled', 'kubelet', 'Container image "nginx" already present on machine'],
      ['Normal', 'Created', 'kubelet', 'Created container: nginx'],
      ['Normal', 'Started', 'kubelet', 'Started container nginx'],
    ]);
  });

  it('get events -w shows an Event the node reports later, and its count going up', async () => {
    const watch = watchLines(spawnKubectl(home, cluster!.cloud.kubeconfigPath, ['get', 'events', '-w', '--field-selector', 'involvedObject.name=nginx']));
    try {
      await until(async () => watch.lines.some((l) => l.includes('Started')), 'the listed Events');
      const killing = await report('Killing', 'Stopping container nginx', 400);
      await until(async () => watch.lines.some((l) => l.includes('Killing')), 'Killing in the watch');
      await report('Killing', 'Stopping container nginx', 400, 2);
      await until(async () => (await events()).some((e) => e.metadata.name === killing.name && e.count === 2), 'Killing counted twice');
      expect(watch.lines.filter((l) => l.includes('Killing'))).toHaveLength(2); // ADDED, then MODIFIED
    } finally {
      watch.stop();
    }
  });
});

/** kubectl as a child process that runs until stopped (a watch), with kubectlIn's environment. */
function spawnKubectl(home: string, kubeconfig: string, args: string[]): ChildProcess {
  return spawn(KUBECTL, ['--cache-dir', join(home, 'kube-cache'), ...args], { env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig } });
}

function watchLines(child: ChildProcess): { lines: string[]; stop: () => void } {
  const lines: string[] = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  return { lines, stop: () => void child.kill() };
}
