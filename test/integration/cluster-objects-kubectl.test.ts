import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { hasKubectl, KUBECTL, kubectlIn, type Run } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

const pods = { resource: 'pods', namespace: 'default' };
const webPod = (name: string, node: string, app = 'web'): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app } },
  spec: { nodeName: node, containers: [{ name: 'main', image: 'kedge.io/web:1', ports: [{ containerPort: 8080 }] }] },
});
const SERVICE = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
const BUDGET = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'solo' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'solo' } } } };

/**
 * The real kubectl on the cluster objects: `describe node` shows the node's Lease, `get leases`
 * one per node, `get endpointslices` one per Service, `describe svc` its endpoints (read from
 * the slices), and `drain` waits on a PodDisruptionBudget until it allows the eviction. The
 * cluster runs on the real clock, as kubectl does; drain's own 5 s retry is the wait.
 */
describe.skipIf(!hasKubectl)('kubectl and the cluster objects', () => {
  let cluster: Cluster | undefined;
  let home: string;
  let drain: ReturnType<typeof drainNode> | undefined;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(home, cluster!.cloud.kubeconfigPath)(...args);
  const ready = async (name: string): Promise<boolean> =>
    (await cluster!.api.get<Pod>({ ...pods, name })).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kedge-cluster-objects-'));
    cluster = await Cluster.start({ transport: 'memory', clock: realClock, nodes: 2 });
    await cluster.api.create({ resource: 'services', namespace: 'default' }, SERVICE);
    await cluster.api.create(pods, webPod('web-1', 'edge-1'));
    await cluster.api.create(pods, webPod('web-2', 'edge-2'));
    await waitFor(async () => (await ready('web-1')) && (await ready('web-2')), 'the web pods Ready', 20_000, 100);
  });
  afterAll(async () => {
    drain?.kill();
    await cluster?.stop().catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  });

  it('lists a Lease per node in kube-node-lease, and describe node shows it', async () => {
    await waitFor(async () => (await kubectl('get', 'leases', '-n', 'kube-node-lease', '-o', 'name')).stdout.includes('lease.coordination.k8s.io/edge-2'), 'the Leases', 20_000, 200);
    const leases = await kubectl('get', 'leases', '-n', 'kube-node-lease');
    expect(leases.stdout).toMatch(/^NAME\s+HOLDER\s+AGE\n/);
    for (const node of ['edge-1', 'edge-2']) expect(leases.stdout).toMatch(new RegExp(`^${node}\\s+${node}\\s+\\d+s$`, 'm'));
    const described = await kubectl('describe', 'node', 'edge-1');
    expect(described.stdout).not.toContain('Failed to get lease');
    expect(described.stdout).toMatch(/^Lease:\n\s+HolderIdentity:\s+edge-1\n\s+AcquireTime:\s+<unset>\n\s+RenewTime:\s+\w{3}, \d\d \w{3} \d{4} [\d:]{8} \+0000$/m);
  });

  it('lists one EndpointSlice per Service, the kubernetes one with the cloud, and describe svc shows its endpoints', async () => {
    const ips = await Promise.all(['web-1', 'web-2'].map(async (name) => (await cluster!.api.get<Pod>({ ...pods, name })).status!.podIP!));
    const sorted = [...ips].sort();
    const port = new URL(cluster!.cloud.apiUrl).port;
    await waitFor(async () => (await kubectl('get', 'endpointslices', '-o', 'name')).stdout.trim().split('\n').length === 2, 'two slices', 20_000, 200);
    const slices = await kubectl('get', 'endpointslices');
    expect(slices.stdout).toMatch(new RegExp(`^NAME\\s+ADDRESSTYPE\\s+PORTS\\s+ENDPOINTS\\s+AGE\\nkubernetes\\s+IPv4\\s+${port}\\s+127\\.0\\.0\\.1\\s+\\d+s\\nweb-[a-z0-9]{5}\\s+IPv4\\s+8080\\s+${sorted.join(',')}\\s+\\d+s\\n$`));
    const described = await kubectl('describe', 'svc', 'web');
    expect(described.stdout).toMatch(new RegExp(`^Endpoints:\\s+${sorted.map((ip) => `${ip}:8080`).join(',')}$`, 'm'));
  });

  it('creates a PodDisruptionBudget with kubectl create pdb, and prints its columns with the allowed disruptions', async () => {
    expect(await kubectl('create', 'pdb', 'web', '--selector=app=web', '--max-unavailable=1')).toMatchObject({ code: 0, stdout: 'poddisruptionbudget.policy/web created\n' });
    // Bare pods have no controller with a scale: kube's controller fails safe, allowing nothing.
    const reason = async (): Promise<string> => (await kubectl('get', 'pdb', 'web', '-o', 'jsonpath={.status.conditions[0].reason}')).stdout;
    await waitFor(async () => (await reason()) === 'SyncFailed', 'the controller to see the budget', 20_000, 100);
    const table = await kubectl('get', 'pdb', 'web');
    expect(table.stdout).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb\s+N\/A\s+1\s+0\s+\d+s\n$/);
    expect((await kubectl('delete', 'pdb', 'web')).code).toBe(0);
  });

  it('drain waits on the PodDisruptionBudget, retrying every 5 s, and completes once the budget allows', async () => {
    await cluster!.api.create({ resource: 'poddisruptionbudgets', group: 'policy', namespace: 'default' }, BUDGET);
    await cluster!.api.create(pods, webPod('solo-1', 'edge-1', 'solo'));
    await waitFor(() => ready('solo-1'), 'solo-1 Ready', 20_000, 100);
    await waitFor(async () => (await kubectl('get', 'pdb', 'solo', '-o', 'jsonpath={.status.currentHealthy}')).stdout === '1', 'the budget counting solo-1', 20_000, 100);

    const running = (drain = drainNode(home, cluster!.cloud.kubeconfigPath, 'edge-1'));
    await waitFor(() => running.stderr().includes('(will retry after 5s)'), 'drain refused by the budget', 20_000, 100);
    expect(running.stderr()).toContain(`error when evicting pods/"solo-1" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`);
    await cluster!.api.create(pods, webPod('solo-2', 'edge-2', 'solo')); // the budget frees up: another healthy pod
    const done = await running.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('pod/solo-1 evicted');
    expect(done.stdout.trim().split('\n').at(-1)).toBe('node/edge-1 drained');
  }, 60_000);
});

/** `kubectl drain` with its stderr readable while it runs (it retries refused evictions every 5 s). */
function drainNode(home: string, kubeconfig: string, node: string): { stderr(): string; done: Promise<Run>; kill(): void } {
  const env = { ...process.env, HOME: home, KUBECONFIG: kubeconfig };
  const child = spawn(KUBECTL, ['--cache-dir', join(home, 'kube-cache'), 'drain', node, '--ignore-daemonsets', '--force', '--timeout=45s'], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr })));
  return { stderr: () => stderr, done, kill: () => void (child.exitCode === null && child.kill()) };
}
