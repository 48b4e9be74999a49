import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

/** `kubectl auth whoami`, `auth can-i` (and `--list`), the RBAC kinds and every namespace's default ServiceAccount, with the real kubectl. */
describe.skipIf(!hasKubectl)('kubectl auth and RBAC against kedge cloud', () => {
  let cloud: CloudProcess | undefined;
  let admin: (...args: string[]) => Promise<Run>;
  let viewer: (...args: string[]) => Promise<Run>;
  beforeAll(async () => {
    cloud = await startCloudProcess('rbac', ['--disable', 'scheduler']);
    admin = kubectlIn(cloud.dir, join(cloud.dir, 'kubeconfig'));
    const out = await kedge('token', 'create', '--data-dir', cloud.dir, '--role', 'viewer');
    expect([out.code, out.stderr]).toEqual([0, '']);
    await writeFile(join(cloud.dir, 'viewer.yaml'), out.stdout, { mode: 0o600 });
    viewer = kubectlIn(cloud.dir, join(cloud.dir, 'viewer.yaml'));
  });
  afterAll(async () => {
    await cloud?.stop();
  });

  it('kubectl auth whoami names the user and its groups', async () => {
    expect(await admin('auth', 'whoami')).toMatchObject({ code: 0, stdout: expect.stringMatching(/Username\s+kedge-admin\nGroups\s+\[system:masters system:authenticated\]/) });
    expect(await viewer('auth', 'whoami')).toMatchObject({ code: 0, stdout: expect.stringMatching(/Username\s+kedge-viewer\nGroups\s+\[kedge:viewers system:authenticated\]/) });
  });

  it('kubectl auth can-i create pods: yes for the admin, no for a viewer; can-i --list answers for both', async () => {
    expect(await admin('auth', 'can-i', 'create', 'pods')).toMatchObject({ code: 0, stdout: 'yes\n' });
    expect(await viewer('auth', 'can-i', 'create', 'pods')).toMatchObject({ code: 1, stdout: 'no\n' });
    expect(await viewer('auth', 'can-i', 'get', 'pods', '--subresource', 'log')).toMatchObject({ code: 0, stdout: 'yes\n' });
    expect(await viewer('auth', 'can-i', 'get', 'secrets')).toMatchObject({ code: 1, stdout: 'no\n' });
    const all = await admin('auth', 'can-i', '--list');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
    expect(all.stdout).toMatch(/\n\*\.\*\s+\[\]\s+\[\]\s+\[\*\]\n/);
    const mine = await viewer('auth', 'can-i', '--list');
    expect(mine.code).toBe(0);
    expect(mine.stdout).toMatch(/\npods\/log\s+\[\]\s+\[\]\s+\[get list watch\]\n/);
    expect(mine.stdout).not.toMatch(/\nsecrets\s/);
  });

  it('kubectl --as is refused, not served as the sender: kedge does not impersonate', async () => {
    expect((await admin('api-resources')).code).toBe(0); // discovery cached: the refusal below is the request's own
    const asked = await admin('auth', 'can-i', 'delete', 'nodes', '--as', 'system:anonymous');
    expect(asked.code).not.toBe(0);
    expect(asked.stdout).not.toMatch(/yes/);
    const got = await admin('get', 'pods', '--as', 'nobody');
    expect([got.code, got.stderr.trim()]).toEqual([1, 'Error from server (Forbidden): users "nobody" is forbidden: User "kedge-admin" cannot impersonate resource "users" in API group "" at the cluster scope: kedge does not support impersonation']);
  });

  it('kubectl get clusterroles and clusterrolebindings print kube columns; a viewer may not bind itself cluster-admin', async () => {
    const roles = await admin('get', 'clusterroles', 'view', 'cluster-admin');
    expect(roles.stdout).toMatch(/^NAME\s+CREATED AT\nview\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\ncluster-admin\s+\d{4}-/);
    const bindings = await admin('get', 'clusterrolebindings', 'cluster-admin', '-o', 'wide');
    expect(bindings.stdout).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\ncluster-admin\s+ClusterRole\/cluster-admin\s+\S+\s+system:masters\s*\n/);
    const bind = await viewer('create', 'clusterrolebinding', 'mine', '--clusterrole', 'cluster-admin', '--user', 'kedge-viewer');
    expect([bind.code, bind.stderr.trim()]).toEqual([1, 'error: failed to create clusterrolebinding: clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "kedge-viewer" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope']);
  });

  it('kubectl create role, rolebinding and serviceaccount (sent as protobuf) grant what they name', async () => {
    expect(await admin('create', 'role', 'cm-writer', '--verb', 'create', '--resource', 'configmaps')).toMatchObject({ code: 0, stdout: 'role.rbac.authorization.k8s.io/cm-writer created\n' });
    expect(await admin('create', 'serviceaccount', 'robot')).toMatchObject({ code: 0, stdout: 'serviceaccount/robot created\n' });
    expect(await viewer('auth', 'can-i', 'create', 'configmaps')).toMatchObject({ stdout: 'no\n' });
    expect((await admin('create', 'rolebinding', 'cm-writers', '--role', 'cm-writer', '--user', 'kedge-viewer', '--serviceaccount', 'default:robot')).code).toBe(0);
    expect(await viewer('auth', 'can-i', 'create', 'configmaps')).toMatchObject({ stdout: 'yes\n' });
    const wide = await admin('get', 'rolebinding', 'cm-writers', '-o', 'wide');
    expect(wide.stdout).toMatch(/\ncm-writers\s+Role\/cm-writer\s+\S+\s+kedge-viewer\s+default\/robot\n/);
  });

  it('kubectl get sa default answers in every namespace, one created later too, with kube-root-ca.crt', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const sa = await waitFor(async () => (await admin('get', 'sa', 'default', '-n', ns)).stdout || false, `default SA in ${ns}`);
      expect(sa).toMatch(/^NAME\s+SECRETS\s+AGE\ndefault\s+0\s+/);
    }
    expect((await admin('create', 'namespace', 'later')).code).toBe(0);
    await waitFor(async () => (await admin('get', 'sa', 'default', '-n', 'later')).code === 0, 'default SA in a namespace created later');
    const ca = await waitFor(async () => (await admin('get', 'configmap', 'kube-root-ca.crt', '-n', 'later', '-o', 'jsonpath={.data.ca\\.crt}')).stdout || false, 'kube-root-ca.crt');
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });
});
