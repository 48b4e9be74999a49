import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, KUBECTL, kubectlIn, type Run } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

describe.skipIf(!hasKubectl)('the real kubectl against the HTTP apiserver', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);

  beforeAll(async () => {
    f = await httpApiFixture();
    await f.api.loopback(f.token).create({ resource: 'nodes' }, {
      metadata: { name: 'edge-1', labels: { 'node-role.kubernetes.io/edge': '' } },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.7' }],
        nodeInfo: { kubeletVersion: 'v1.32.4-kedge', osImage: 'Kedge Sim', kernelVersion: '6.1.0', containerRuntimeVersion: 'sim://1.0' },
      },
    } as never);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('gets nodes -o wide', async () => {
    const r = await kubectl('get', 'nodes', '-o', 'wide');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    expect(row!.split(/\s{2,}/)).toEqual(['edge-1', 'Ready', 'edge', expect.stringMatching(/^\d+s$/), 'v1.32.4-kedge', '10.0.0.7', '<none>', 'Kedge Sim', '6.1.0', 'sim://1.0']);
  });

  it('creates, lists, deletes a pod and reports NotFound afterwards', async () => {
    const manifest = join(f.dir, 'pod.yaml');
    await writeFile(manifest, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n');
    const created = await kubectl('create', '--validate=false', '-f', manifest);
    expect(created).toMatchObject({ code: 0, stdout: 'pod/x created\n' });

    const pods = await kubectl('get', 'pods');
    expect(pods.code).toBe(0);
    const [header, row] = pods.stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(row!.split(/\s+/).slice(0, 4)).toEqual(['x', '0/1', 'Pending', '0']);

    const po = await kubectl('get', 'po', '-A');
    expect(po.code).toBe(0);
    expect(po.stdout.split('\n')[1]!.split(/\s+/).slice(0, 2)).toEqual(['default', 'x']);

    const yaml = await kubectl('get', 'pod', 'x', '-o', 'jsonpath={.spec.restartPolicy}');
    expect(yaml.stdout).toBe('Always');

    const deleted = await kubectl('delete', 'pod', 'x');
    expect(deleted).toMatchObject({ code: 0, stdout: 'pod "x" deleted\n' });

    const gone = await kubectl('get', 'pod', 'x');
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('NotFound');
  });

  it('cordons a node with a strategic merge patch', async () => {
    const r = await kubectl('cordon', 'edge-1');
    expect(r).toMatchObject({ code: 0, stdout: 'node/edge-1 cordoned\n' });
    const nodes = await kubectl('get', 'no');
    expect(nodes.stdout).toContain('Ready,SchedulingDisabled');
  });

  it('follows changes with get -w (Table watch events)', async () => {
    const loop = f.api.loopback(f.token);
    await loop.create({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'watched' }, spec: { containers: [{ name: 'c', image: 'x' }] } } as never);
    const child = spawn(KUBECTL, ['--cache-dir', join(f.dir, 'kube-cache'), 'get', 'pods', '-w', '-o', 'wide'], { env: { ...process.env, HOME: f.dir, KUBECONFIG: f.kubeconfig } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(() => out.includes('watched'), 'kubectl get -w to list', 15_000, 20);
      await loop.create({ resource: 'pods', namespace: 'default', name: 'watched', subresource: 'binding' }, { metadata: { name: 'watched' }, target: { name: 'edge-1' } } as never);
      await waitFor(() => /watched\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+edge-1/.test(out), 'the bound pod in the watch output', 15_000, 20);
      expect(out).toMatch(/NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/);
    } finally {
      child.kill();
    }
  });

  it('reports a wrong token as Unauthorized', async () => {
    const r = await kubectl('get', 'pods', '--token', 'nope');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
