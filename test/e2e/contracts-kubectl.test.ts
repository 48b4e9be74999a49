import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/**
 * Issue 16's contracts for who may do what, as a user meets them: a `kedge cloud` process,
 * tokens from `kedge token create`, and the real kubectl.
 */
describe.skipIf(!hasKubectl)('kubectl against kedge cloud: viewers, nodes and quantities', () => {
  let cloud: CloudProcess | undefined;
  let dir: string;
  beforeAll(async () => {
    cloud = await startCloudProcess('contracts', ['--disable', 'scheduler,controller-manager']);
    dir = cloud.dir;
  });
  afterAll(async () => {
    await cloud?.stop();
  });

  /** `kedge token create …`, its kubeconfig written to `file`: kubectl as that token's user. */
  const kubectlWithToken = async (file: string, ...args: string[]): Promise<(...args: string[]) => Promise<Run>> => {
    const out = await kedge('token', 'create', '--data-dir', dir, ...args);
    expect([out.code, out.stderr]).toEqual([0, '']);
    await writeFile(join(dir, file), out.stdout, { mode: 0o600 });
    return kubectlIn(dir, join(dir, file));
  };
  const manifest = async (name: string, yaml: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, yaml);
    return path;
  };

  it('a viewer token gets Forbidden for kubectl get secrets -A', async () => {
    const kubectl = await kubectlWithToken('viewer.yaml', '--role', 'viewer');
    expect((await kubectl('get', 'pods', '-A')).code).toBe(0);
    const secrets = await kubectl('get', 'secrets', '-A');
    expect([secrets.code, secrets.stderr.trim()]).toEqual([1, 'Error from server (Forbidden): secrets is forbidden: User "kedge-viewer" cannot list resource "secrets" in API group "" at the cluster scope']);
  });

  it('a node token registers its own Node, then gets Forbidden for kubectl taint, cordon and a role label', async () => {
    const kubectl = await kubectlWithToken('node.yaml', '--role', 'node', '--node', 'edge-1', '-o', 'kubeconfig');
    const node = await manifest('edge-1.yaml', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: edge-1\n  labels:\n    kubernetes.io/hostname: edge-1\n');
    expect(await kubectl('create', '-f', node)).toMatchObject({ code: 0, stdout: 'node/edge-1 created\n' });
    const taint = await kubectl('taint', 'node', 'edge-1', 'k=v:NoSchedule');
    expect([taint.code, taint.stderr.trim()]).toEqual([1, 'Error from server (Forbidden): nodes "edge-1" is forbidden: node "edge-1" is not allowed to modify taints']);
    const cordon = await kubectl('cordon', 'edge-1');
    expect(cordon.stderr).toContain('nodes "edge-1" is forbidden: node "edge-1" is not allowed to modify unschedulable');
    const label = await kubectl('label', 'node', 'edge-1', 'node-role.kubernetes.io/control-plane=');
    expect(label.stderr).toContain('nodes "edge-1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane');
    expect((await kubectl('label', 'node', 'edge-1', 'example.com/rack=r1')).code).toBe(0);
  });

  it('a pod with resources.requests.cpu: banana gets a 422 naming the field', async () => {
    const kubectl = kubectlIn(dir, join(dir, 'kubeconfig'));
    const pod = await manifest('banana.yaml', [
      'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: banana', 'spec:', '  containers:', '  - name: app', '    image: nginx:1.27', '    resources:', '      requests:', '        cpu: banana', '',
    ].join('\n'));
    const created = await kubectl('create', '-f', pod);
    expect(created.code).toBe(1);
    expect(created.stderr.trim()).toBe(
      `The Pod "banana" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "banana": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });
});
