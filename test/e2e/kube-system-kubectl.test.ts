import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';
import { readyField } from '../../sim/role-process.js';

const NODE = 'kedge-control-plane';

/** `kedge cloud` as its own control-plane node, read by the real kubectl. */
describe.runIf(hasKubectl)('a truthful kube-system', () => {
  let cloudProcess: CloudProcess | undefined;
  let kubectl: (...args: string[]) => Promise<Run>;

  beforeAll(async () => {
    cloudProcess = await startCloudProcess('kube-system');
    kubectl = kubectlIn(cloudProcess.dir, join(cloudProcess.dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await cloudProcess?.stop();
  });

  /** Polls kubectl (real time: a real process) until its output matches. */
  const eventually = (args: string[], pattern: RegExp): Promise<Run> =>
    waitFor(async () => {
      const out = await kubectl(...args);
      return pattern.test(out.stdout) && out;
    }, `kubectl ${args.join(' ')} to print ${pattern}`, 15_000, 100);

  it('lists the control plane as mirror pods, 1/1 Running, and a stopped component as 0/1', async () => {
    const pods = await eventually(['get', 'pods', '-n', 'kube-system'], new RegExp(`kedge-hub-${NODE} +2/2 +Running`));
    expect(pods.stderr).toBe('');
    for (const name of ['etcd', 'kube-apiserver', 'kube-scheduler', 'kube-controller-manager']) expect(pods.stdout).toMatch(new RegExp(`\\n${name}-${NODE} +1/1 +Running +0 `));
    expect(pods.stdout).toMatch(new RegExp(`\\nkedge-hub-${NODE} +2/2 +Running +0 `));

    expect((await kedge('component', 'stop', 'scheduler', '--data-dir', cloudProcess!.dir)).code).toBe(0);
    expect((await eventually(['get', 'pods', '-n', 'kube-system'], new RegExp(`kube-scheduler-${NODE} +0/1`))).stdout).toMatch(new RegExp(`\\nkube-scheduler-${NODE} +0/1 +Running +0 `));
    expect((await kedge('component', 'start', 'scheduler', '--data-dir', cloudProcess!.dir)).code).toBe(0);
    expect((await eventually(['get', 'pods', '-n', 'kube-system'], new RegExp(`kube-scheduler-${NODE} +1/1`))).stdout).toMatch(new RegExp(`\\nkube-scheduler-${NODE} +1/1 +Running`));
  });

  it("prints a component's own log with kubectl logs", async () => {
    const logs = await kubectl('logs', '-n', 'kube-system', `kube-scheduler-${NODE}`);
    expect(logs.code).toBe(0);
    const lines = logs.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(logs.stdout).toMatch(/component started \{"component":"scheduler"\}/);
    expect(logs.stdout).not.toMatch(/\[(apiserver|hub)/);
    const tail = await kubectl('logs', '-n', 'kube-system', `kube-scheduler-${NODE}`, '--tail=1', '--timestamps');
    expect(tail.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \S+ \w+ +\[/);
    expect(tail.stdout.trimEnd().split('\n')).toHaveLength(1);
    const hub = await kubectl('logs', '-n', 'kube-system', `kedge-hub-${NODE}`);
    expect(hub.stdout).toMatch(/\[hub\/hub\] cloud hub started/);
  });

  it('shows the control-plane row in kubectl get nodes -o wide', async () => {
    const nodes = await kubectl('get', 'nodes', '-o', 'wide');
    expect(nodes.stdout).toMatch(new RegExp(`\\n${NODE} +Ready +control-plane +\\S+ +v1\\.32\\.4-kedge +127\\.0\\.0\\.1 +<none> +kedge cloud +\\S+ +kedge://0\\.1\\.0`));
  });

  it('lists the cloud in the kubernetes Service: its EndpointSlice, its Endpoints, describe svc', async () => {
    const port = new URL(readyField(await cloudProcess!.cloud.ready, 'api')).port;
    const slices = await kubectl('get', 'endpointslices', '-n', 'default');
    expect(slices.stdout).toMatch(new RegExp(`\\nkubernetes +IPv4 +${port} +127\\.0\\.0\\.1 `));
    expect((await kubectl('get', 'endpoints', 'kubernetes')).stdout).toMatch(new RegExp(`\\nkubernetes +127\\.0\\.0\\.1:${port} `));
    expect((await kubectl('describe', 'svc', 'kubernetes')).stdout).toMatch(new RegExp(`\\nEndpoints: +127\\.0\\.0\\.1:${port}\\n`));
  });

  it('warns that ComponentStatus is deprecated, and lists the components', async () => {
    const cs = await kubectl('get', 'cs');
    expect(cs.code).toBe(0);
    expect(cs.stderr).toBe('Warning: v1 ComponentStatus is deprecated in v1.19+\n');
    expect(cs.stdout).toMatch(/\nscheduler +Healthy +ok/);
  });

  it("creates the edge agents' DaemonSets and the kedge-agent RuntimeClass", async () => {
    const ds = await kubectl('get', 'daemonsets', '-n', 'kube-system');
    expect(ds.stdout).toMatch(/\nkedge-cni +0 +0 +0 +0 +0 /);
    expect(ds.stdout).toMatch(/\nkube-proxy +0 +0 +0 +0 +0 /);
    expect((await kubectl('get', 'runtimeclass', 'kedge-agent')).stdout).toMatch(/\nkedge-agent +kedge-agent /);
  });
});
