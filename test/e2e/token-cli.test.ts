import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';
import { waitFor } from '../support/wait.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: { token: string } }[];
}

/** `kedge token create` against a running `kedge cloud`: the cloud accepts the new token without a restart. */
describe('kedge token create', () => {
  let dir: string;
  let cloudProcess: CloudProcess | undefined;

  beforeAll(async () => {
    cloudProcess = await startCloudProcess('token', ['--disable', 'scheduler,controller-manager']);
    dir = cloudProcess.dir;
  });
  afterAll(async () => {
    await cloudProcess?.stop();
  });

  /** Runs `kedge token create …` and writes the kubeconfig it prints to a file. */
  async function create(file: string, ...args: string[]): Promise<{ path: string; config: Kubeconfig }> {
    const out = await kedge('token', 'create', '--data-dir', dir, ...args);
    expect([out.code, out.stderr]).toEqual([0, '']);
    const path = join(dir, file);
    await writeFile(path, out.stdout);
    return { path, config: parse(out.stdout) as Kubeconfig };
  }

  it("prints a kubeconfig with the cloud's server and CA and a new token, kept in tokens.json", async () => {
    const { config } = await create('viewer.yaml', '--role', 'viewer');
    const admin = parse(await readFile(join(dir, 'kubeconfig'), 'utf8')) as Kubeconfig;
    expect(config.clusters[0]!.cluster.server).toBe(admin.clusters[0]!.cluster.server);
    expect(Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString()).toBe(await readFile(join(dir, 'ca.crt'), 'utf8'));
    expect(config.users[0]!.name).toBe('kedge-viewer');
    const token = config.users[0]!.user.token;
    expect(token).not.toBe(admin.users[0]!.user.token);
    const stored = JSON.parse(await readFile(join(dir, 'tokens.json'), 'utf8')) as { admin: string; tokens: { token: string; role: string }[] };
    expect(stored.tokens.find((t) => t.token === token)?.role).toBe('viewer');
    expect(typeof stored.admin).toBe('string');
  });

  it.runIf(hasKubectl)('a viewer kubeconfig lists pods with the real kubectl and gets Forbidden on delete', async () => {
    const { path } = await create('viewer-kubectl.yaml', '--role', 'viewer', '--name', 'alice');
    const kubectl = kubectlIn(dir, path);
    const list = await kubectl('get', 'pods');
    expect(list.code).toBe(0);
    expect(list.stderr).toContain('No resources found in default namespace.');
    const del = await kubectl('delete', 'pod', 'x');
    expect(del.code).toBe(1);
    expect(del.stderr).toContain('Error from server (Forbidden): pods "x" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default"');
  });

  it.runIf(hasKubectl)('an admin kubeconfig writes; a node kubeconfig reads nodes but may not delete a node or a pod', async () => {
    const admin = await create('admin.yaml', '--role', 'admin', '--name', 'bob');
    const labeled = await kubectlIn(dir, admin.path)('label', 'namespace', 'default', 'owner=bob');
    expect([labeled.code, labeled.stdout.trim()]).toEqual([0, 'namespace/default labeled']);
    const node = await create('node.yaml', '--role', 'node', '--node', 'edge-1', '-o', 'kubeconfig');
    const kubectl = kubectlIn(dir, node.path);
    expect((await kubectl('get', 'nodes')).code).toBe(0);
    const deleteNode = await kubectl('delete', 'node', 'edge-2');
    expect(deleteNode.code).toBe(1);
    expect(deleteNode.stderr).toContain('nodes "edge-2" is forbidden: User "system:node:edge-1" cannot delete resource "nodes" in API group "" at the cluster scope');
    const deletePod = await kubectl('delete', 'pod', 'x');
    expect(deletePod.stderr).toContain('User "system:node:edge-1" cannot delete resource "pods"');
  });

  it('prints only the token for a node by default', async () => {
    const out = await kedge('token', 'create', '--data-dir', dir, '--role', 'node', '--node', 'edge-2');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^[\w-]{43}\n$/);
    const stored = JSON.parse(await readFile(join(dir, 'tokens.json'), 'utf8')) as { tokens: { token: string; user: string; groups: string[] }[] };
    expect(stored.tokens.find((t) => t.token === out.stdout.trim())).toMatchObject({ user: 'system:node:edge-2', groups: ['system:nodes'] });
  });

  it('kedge token delete: the running cloud stops accepting the token, and neither tokens.json nor its last good copy holds it', async () => {
    const { config } = await create('carol.yaml', '--role', 'viewer', '--name', 'carol');
    const token = config.users[0]!.user.token;
    const api = createRemoteClient(config.clusters[0]!.cluster.server, token, await readFile(join(dir, 'ca.crt'), 'utf8'));
    await expect(api.list({ resource: 'namespaces' })).resolves.toMatchObject({ kind: 'NamespaceList' });
    const out = await kedge('token', 'delete', '--data-dir', dir, '--name', 'carol');
    expect([out.code, out.stdout, out.stderr]).toEqual([0, 'deleted 1 API token of user carol\n', '']);
    for (const file of ['tokens.json', 'tokens.json.prev']) expect(await readFile(join(dir, file), 'utf8')).not.toContain(token);
    // The first request after the change may still pass: it starts the look at the file without waiting for it.
    await waitFor(() => api.list({ resource: 'namespaces' }).then(() => false, (err: { code?: string }) => err.code === 'Unauthorized'), 'the token refused', 10_000, 200);
    const again = await kedge('token', 'delete', '--data-dir', dir, '--name', 'carol');
    expect([again.code, again.stderr]).toEqual([1, `error: no API token of user "carol" in ${join(dir, 'tokens.json')} or its last good copy\n`]);
    const neither = await kedge('token', 'delete', '--data-dir', dir);
    expect([neither.code, neither.stderr]).toEqual([1, 'error: say whose API tokens to delete: --name <user> (an admin or viewer) or --node <name> (a node)\n']);
  });

  it('names the problem and exits 1 for a bad role, a node without --node, or no cloud data', async () => {
    const before = await readFile(join(dir, 'tokens.json'), 'utf8');
    const badRole = await kedge('token', 'create', '--data-dir', dir, '--role', 'root');
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toContain("argument 'root' is invalid. Allowed choices are admin, viewer, node.");
    const noNode = await kedge('token', 'create', '--data-dir', dir, '--role', 'node');
    expect(noNode.code).toBe(1);
    expect(noNode.stderr).toContain('--role node needs --node <name>');
    const missing = await kedge('token', 'create', '--data-dir', join(dir, 'nowhere'), '--role', 'viewer');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no kedge cloud data in ${join(dir, 'nowhere')}`);
    expect(await readFile(join(dir, 'tokens.json'), 'utf8')).toBe(before);
  });
});
