import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import { Cluster } from '../../sim/local-cluster.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, KUBECTL, kubectlIn, type Run } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

/** Issue 6 acceptance: a session with the real kubectl against a cloud and two edges, steps in order, objects reused. */
describe('kubectl acceptance', () => {
  let cluster: Cluster;
  let home: string;
  let kubectl: (...args: string[]) => Promise<Run>;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kedge-acceptance-'));
    cluster = await Cluster.start({ transport: 'mqtt', clock: realClock, nodes: 2, timing: scaleTiming(defaultTiming, 10) });
    kubectl = kubectlIn(home, cluster.cloud.kubeconfigPath);
  });
  afterAll(async () => {
    await cluster?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** Runs kubectl and expects exit 0, naming the command and its stderr otherwise. */
  const ok = async (...args: string[]): Promise<string> => {
    const out = await kubectl(...args);
    expect(out.code, `kubectl ${args.join(' ')}: ${out.stderr}`).toBe(0);
    return out.stdout;
  };
  /** Polls a kubectl command until `done` holds for its stdout (real clock: kubectl talks over real sockets). */
  const until = (args: string[], done: (stdout: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> =>
    waitFor(async () => {
      const out = await kubectl(...args);
      return out.code === 0 && done(out.stdout) && { stdout: out.stdout };
    }, what, timeoutMs, 200).then((r) => r.stdout);
  const podStates = 'jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.spec.nodeName} {.metadata.deletionTimestamp}{"\\n"}{end}';
  const rows = (stdout: string, pattern: RegExp): string[] => stdout.split('\n').filter((l) => pattern.test(l));
  const webPods = async (): Promise<{ name: string; node: string }[]> =>
    (await ok('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\\n"}{end}'))
      .split('\n').filter(Boolean).map((l) => { const [name, node] = l.split(' '); return { name: name!, node: node! }; });

  it('has the real kubectl on PATH', () => {
    expect(hasKubectl).toBe(true);
  });

  it('get nodes -o wide lists two Ready edges', async () => {
    const out = await until(['get', 'nodes', '-o', 'wide'], (s) => rows(s, /^edge-[12]\s+Ready\s/).length === 2, 'two Ready edges');
    expect(out).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP/);
    expect(rows(out, /sim:\/\/\S+/)).toHaveLength(2);
  });

  it('apply creates, configures, then leaves unchanged; rollout status waits for it', async () => {
    expect((await ok('apply', '-f', 'examples/deployment.yaml')).trim()).toBe('deployment.apps/web created');
    const copy = join(home, 'deployment.yaml');
    await writeFile(copy, (await readFile('examples/deployment.yaml', 'utf8')).replace('replicas: 3', 'replicas: 2'));
    expect((await ok('apply', '-f', copy)).trim()).toBe('deployment.apps/web configured');
    expect((await ok('apply', '-f', copy)).trim()).toBe('deployment.apps/web unchanged');
    expect(await ok('rollout', 'status', 'deploy/web', '--timeout=15s')).toContain('deployment "web" successfully rolled out');
    expect(await ok('get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas} {.status.readyReplicas}')).toBe('2 2');
  });

  it('get pods -A -o wide and get all show the pods on the edges, the ReplicaSet and the Deployment', async () => {
    const pods = await ok('get', 'pods', '-A', '-o', 'wide');
    expect(pods).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE/);
    expect(rows(pods, /^default\s+web-[a-z0-9]+-[a-z0-9]+\s+1\/1\s+Running\s+0\s+\S+\s+\S+\s+edge-[12]\s/)).toHaveLength(2);
    const all = await ok('get', 'all');
    expect(rows(all, /^pod\/web-\S+\s+1\/1\s+Running/)).toHaveLength(2);
    expect(all).toMatch(/^service\/kubernetes\s/m);
    expect(all).toMatch(/^deployment\.apps\/web\s+2\/2\s+2\s+2\s/m);
    expect(all).toMatch(/^replicaset\.apps\/web-[a-z0-9]+\s+2\s+2\s+2\s/m);
  });

  it('scale to 4, rollout status, then wait for Ready', async () => {
    expect((await ok('scale', 'deploy/web', '--replicas=4')).trim()).toBe('deployment.apps/web scaled');
    expect(await ok('rollout', 'status', 'deploy/web', '--timeout=15s')).toContain('deployment "web" successfully rolled out');
    const waited = await ok('wait', '--for=condition=Ready', 'pod', '-l', 'app=web', '--timeout=30s');
    expect(rows(waited, /^pod\/web-\S+ condition met$/)).toHaveLength(4);
  });

  it('get pods -w --output-watch-events shows ADDED rows, then MODIFIED for a label change', async () => {
    const [first] = await webPods();
    const child = spawn(KUBECTL, ['--cache-dir', join(home, 'kube-cache'), 'get', 'pods', '-w', '--output-watch-events'], {
      env: { ...process.env, HOME: home, KUBECONFIG: cluster.cloud.kubeconfigPath },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await waitFor(() => rows(stdout, /^ADDED\s+web-/).length === 4, 'four ADDED rows', 10_000, 20);
      expect(stdout).toMatch(/^EVENT\s+NAME\s+READY\s+STATUS/);
      expect((await ok('label', 'pod', first!.name, 'acceptance=watched')).trim()).toBe(`pod/${first!.name} labeled`);
      await waitFor(() => rows(stdout, new RegExp(`^MODIFIED\\s+${first!.name}\\s+1/1\\s+Running`)).length > 0, 'a MODIFIED row', 10_000, 20);
      expect(stderr).toBe('');
    } finally {
      child.kill();
    }
  });

  it('describe pod, node and deployment print their stable sections', async () => {
    const [pod] = await webPods();
    const described = await ok('describe', 'pod', pod!.name);
    expect(described).toMatch(new RegExp(`^Name:\\s+${pod!.name}$`, 'm'));
    expect(described).toMatch(new RegExp(`^Node:\\s+${pod!.node}/`, 'm'));
    expect(described).toMatch(/^Status:\s+Running$/m);
    expect(described).toMatch(/^Controlled By:\s+ReplicaSet\/web-/m);
    expect(described).toMatch(/^Conditions:$/m);
    expect(described).toMatch(/^\s+Image:\s+kedge\.io\/hello:1\.0$/m);
    const node = await ok('describe', 'node', 'edge-1');
    expect(node).toMatch(/^Name:\s+edge-1$/m);
    expect(node).toMatch(/^Conditions:$/m);
    expect(node).toMatch(/^\s+Ready\s+True\s/m);
    expect(node).toMatch(/^Non-terminated Pods:/m);
    const deploy = await ok('describe', 'deployment', 'web');
    expect(deploy).toMatch(/^Name:\s+web$/m);
    expect(deploy).toMatch(/^Selector:\s+app=web$/m);
    expect(deploy).toMatch(/^Replicas:\s+4 desired \| 4 updated \| 4 total \| 4 available \| 0 unavailable$/m);
    expect(deploy).toMatch(/^NewReplicaSet:\s+web-[a-z0-9]+ \(4\/4 replicas created\)$/m);
  });

  it('logs prints the simulated container log', async () => {
    const [pod] = await webPods();
    expect(await ok('logs', pod!.name)).toMatch(/^\[kedge sim\] web: started \(image kedge\.io\/hello:1\.0, attempt 0\)$/m);
  });

  it('cordon shows SchedulingDisabled; uncordon clears it', async () => {
    expect((await ok('cordon', 'edge-1')).trim()).toBe('node/edge-1 cordoned');
    expect(await ok('get', 'nodes')).toMatch(/^edge-1\s+Ready,SchedulingDisabled\s/m);
    expect((await ok('uncordon', 'edge-1')).trim()).toBe('node/edge-1 uncordoned');
    expect(await ok('get', 'nodes')).toMatch(/^edge-1\s+Ready\s/m);
  });

  it('drain edge-2 moves its pods to edge-1', async () => {
    expect((await webPods()).some((p) => p.node === 'edge-2')).toBe(true);
    const drained = await kubectl('drain', 'edge-2', '--ignore-daemonsets', '--force', '--delete-emptydir-data', '--timeout=15s');
    expect(drained.code, drained.stderr).toBe(0);
    expect(drained.stdout).toContain('node/edge-2 cordoned');
    expect(drained.stdout).toMatch(/^evicting pod default\/web-/m);
    expect(drained.stdout).toContain('node/edge-2 drained');
    await waitFor(async () => {
      const pods = await webPods();
      return pods.length === 4 && pods.every((p) => p.node === 'edge-1');
    }, 'four web pods on edge-1', 15_000, 200);
    expect(await ok('rollout', 'status', 'deploy/web', '--timeout=15s')).toContain('successfully rolled out');
    expect((await ok('uncordon', 'edge-2')).trim()).toBe('node/edge-2 uncordoned');
  });

  it('delete deployment --cascade=foreground removes the Deployment, its ReplicaSet and its pods', async () => {
    const deleted = await kubectl('delete', 'deployment', 'web', '--cascade=foreground');
    // On failure, say which pods held the foreground deletion up, and in what state.
    const left = deleted.code === 0 ? '' : (await kubectl('get', 'pods', '-o', podStates)).stdout;
    expect([deleted.code, deleted.stdout.trim()], `${deleted.stderr}\npods left:\n${left}`).toEqual([0, 'deployment.apps "web" deleted']);
    await until(['get', 'deploy,rs,pods', '-l', 'app=web', '-o', 'name'], (s) => s.trim() === '', 'web and its dependents gone');
  });

  it('create namespace then delete namespace: the namespace controller finishes it', async () => {
    expect((await ok('create', 'namespace', 'acc')).trim()).toBe('namespace/acc created');
    expect((await ok('delete', 'namespace', 'acc')).trim()).toBe('namespace "acc" deleted');
    const gone = await kubectl('get', 'namespace', 'acc');
    expect([gone.code, gone.stderr.trim()]).toEqual([1, 'Error from server (NotFound): namespaces "acc" not found']);
  });

  it('apply --server-side creates the pod', async () => {
    expect((await ok('apply', '--server-side', '-f', 'examples/pod.yaml')).trim()).toBe('pod/hello serverside-applied');
  });

  it('a viewer kubeconfig from kedge token create lists pods but may not delete one', async () => {
    const created = await kedge('token', 'create', '--role', 'viewer', '--data-dir', join(cluster.dir, 'cloud'));
    expect([created.code, created.stderr]).toEqual([0, '']);
    const path = join(home, 'viewer.yaml');
    await writeFile(path, created.stdout);
    const viewer = kubectlIn(home, path);
    const list = await viewer('get', 'pods');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^hello\s+\d\/1\s/m);
    const del = await viewer('delete', 'pod', 'hello');
    expect(del.code).toBe(1);
    expect(del.stderr).toMatch(/^Error from server \(Forbidden\): pods "hello" is forbidden: User "\S+" cannot delete resource "pods" in API group "" in the namespace "default"/);
    expect(await ok('get', 'pod', 'hello', '-o', 'name')).toBe('pod/hello\n');
  });
});
