import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../cloud/client/client.js';
import { CA_CERT_FILE, readCredentials, readEdgeToken } from '../../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { CRASH_STEPS } from '../../edge/crash-point.js';
import { LOG_SHIM_SOURCE } from '../../edge/runtime/process-logs.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { realClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Node, Pod } from '../../shared/types.js';
import { readyField, startRole, type RoleProcess } from '../../sim/role-process.js';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { liveProcesses } from '../support/processes.js';
import { waitFor } from '../support/wait.js';
import { testNetwork } from '../support/test-network.js';

const TIME_SCALE = '10';
const KEEP_RUNNING = 'setInterval(() => {}, 1000)';
const CONTAINERS = ['app', 'side'];

/** A process pod bound to `node`: two containers, each a `node` process that runs until stopped, named in its argv. */
function processPod(node: string): Pod {
  const containers = CONTAINERS.map((name) => ({ name, image: 'node', command: ['node', '-e', KEEP_RUNNING, `${node}/${name}`] }));
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: node }, spec: { nodeName: node, runtimeClassName: 'process', containers } };
}

/** The container processes of `node`'s pod that run now, by container name, and the shims of its data dir. */
async function processesOf(node: string, dataDir: string): Promise<{ containers: string[]; shims: number }> {
  const all = await liveProcesses();
  const containers = all.filter((p) => p.args[2] === KEEP_RUNNING && p.args[3]?.startsWith(`${node}/`)).map((p) => p.args[3]!.slice(node.length + 1));
  const shims = all.filter((p) => p.args[2] === LOG_SHIM_SOURCE && p.args[4]?.startsWith(dataDir)).length;
  return { containers: containers.sort(), shims };
}

const isRunning = (pod: Pod | undefined): boolean =>
  pod?.status?.phase === 'Running' && (pod.status.containerStatuses ?? []).filter((c) => c.state.running && c.ready).length === CONTAINERS.length;

/**
 * A real `kedge edge` killed with SIGKILL (KEDGE_CRASH_AT) at each step of a process pod's
 * start, then started again: once it settles, each container runs as exactly one process
 * under one shim, and deleting the pod leaves none behind. One cloud for every step.
 */
describe('kedge edge killed at each step of a process pod start', () => {
  let cloud: CloudProcess;
  let api: ApiClient;
  let edgeArgs: (node: string) => string[];
  const edges: RoleProcess[] = [];
  const dataDirs: string[] = [];

  beforeAll(async () => {
    cloud = await startCloudProcess('crash-steps', ['--time-scale', TIME_SCALE]);
    const ready = await cloud.cloud.ready;
    const ca = await readFile(join(cloud.dir, CA_CERT_FILE), 'utf8');
    api = createRemoteClient(readyField(ready, 'api'), (await readCredentials(cloud.dir))!.admin, ca);
    const token = await readEdgeToken(cloud.dir);
    edgeArgs = (node) => ['edge', '--node', node, '--broker', readyField(ready, 'mqtt'), '--token', token,
      '--data-dir', join(cloud.dir, node), '--local-api-port', '0', '--time-scale', TIME_SCALE, '--pod-cidr', '127.32.0.0/24'];
  });
  afterAll(async () => {
    await Promise.all(edges.map((e) => e.stop()));
    // What a failed case left running: a reboot of each runtime kills it.
    for (const dataDir of dataDirs) await ProcessRuntime.open({ network: testNetwork(), dataDir, clock: realClock, reboot: true });
    await cloud?.stop();
  });

  function startEdge(node: string, crashAt?: string): RoleProcess {
    const edge = startRole({ name: node, args: edgeArgs(node), readyPattern: /^kedge edge \S+ ready /, clock: realClock, env: crashAt ? { KEDGE_CRASH_AT: crashAt } : {} });
    edges.push(edge);
    return edge;
  }
  const podOf = (node: string) => api.get<Pod>({ resource: 'pods', namespace: node, name: 'p' }).catch((err: unknown) => (isKedgeError(err, 'NotFound') ? undefined : Promise.reject(err)));

  it.each(CRASH_STEPS)('at %s', async (step) => {
    const node = `crash-at-${step}`;
    const dataDir = join(cloud.dir, node);
    dataDirs.push(dataDir);
    const crashing = startEdge(node, step);
    await crashing.ready;
    await waitFor(() => api.get<Node>({ resource: 'nodes', name: node }).then(Boolean, () => false), `node ${node}`, 15_000, 50);
    await api.create({ resource: 'namespaces', name: node }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: node } });
    await api.create({ resource: 'pods', namespace: node, name: 'p' }, processPod(node));
    await crashing.exited;
    expect(crashing.child.signalCode).toBe('SIGKILL');

    const edge = startEdge(node);
    await edge.ready;
    await waitFor(async () => isRunning(await podOf(node)), `pod p Running on ${node}`, 20_000, 100);
    expect(await processesOf(node, dataDir)).toEqual({ containers: CONTAINERS, shims: CONTAINERS.length });

    await api.delete({ resource: 'pods', namespace: node, name: 'p' });
    await waitFor(async () => (await podOf(node)) === undefined, `pod p gone from ${node}`, 20_000, 100);
    await waitFor(async () => (await processesOf(node, dataDir)).shims === 0, 'no shim left', 5_000, 50);
    expect(await processesOf(node, dataDir)).toEqual({ containers: [], shims: 0 });
    await edge.stop();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);
});
