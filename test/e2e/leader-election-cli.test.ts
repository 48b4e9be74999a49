import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';

const IDENTITY = new RegExp(`^${hostname().replace(/[.]/g, '\\.')}_[0-9a-f-]{36}$`);
/** The apiserver's own identity Lease (every cloud has one, leader election or not), held by its run. */
const APISERVER_LEASE = /^apiserver-[a-z2-7]{26}$/;
const APISERVER_HOLDER = /^apiserver-[a-z2-7]{26}_[0-9a-f-]{36}$/;

/** A `kedge cloud` process, alone: it leads at once, and says so where kube's users look. */
describe.runIf(hasKubectl)('leader election as kubectl and kedge component show it', () => {
  let cloud: CloudProcess | undefined;
  afterEach(async () => {
    await cloud?.stop();
    cloud = undefined;
  });

  it('kubectl get leases -n kube-system lists the three Leases held by the cloud, beside its apiserver\'s own; the components say they lead', async () => {
    cloud = await startCloudProcess('elect');
    const kubectl = kubectlIn(cloud.dir, join(cloud.dir, 'kubeconfig'));
    const leases = await kubectl('get', 'leases', '-n', 'kube-system');
    expect(leases.code).toBe(0);
    const rows = leases.stdout.trim().split('\n').map((line) => line.split(/\s+/));
    expect(rows[0]).toEqual(['NAME', 'HOLDER', 'AGE']);
    expect(rows[1]![0]).toMatch(APISERVER_LEASE);
    expect(rows[1]![1]).toMatch(APISERVER_HOLDER);
    expect(rows.slice(2).map((r) => r[0])).toEqual(['kedge-hub', 'kube-controller-manager', 'kube-scheduler']);
    const holders = new Set(rows.slice(2).map((r) => r[1]));
    expect(holders.size).toBe(1);
    expect([...holders][0]).toMatch(IDENTITY);

    const status = await kedge('component', 'status', '--data-dir', cloud.dir);
    expect(status.stdout).toMatch(/\nscheduler +- +Running +\S+ +ok \(leader\)/);
    expect(status.stdout).toMatch(/\nnode-lifecycle +controller-manager +Running +\S+ +ok \(leader\)/);
    expect((await kubectl('get', 'cs')).stdout).toMatch(/\ncontroller-manager +Healthy +ok \(leader\)/);
  });

  it('--leader-elect=false runs them unconditionally, with no Lease but the apiserver\'s own', async () => {
    cloud = await startCloudProcess('no-elect', ['--leader-elect=false']);
    const kubectl = kubectlIn(cloud.dir, join(cloud.dir, 'kubeconfig'));
    const leases = await kubectl('get', 'leases', '-n', 'kube-system', '-o', 'name');
    expect([leases.code, leases.stderr]).toEqual([0, '']);
    expect(leases.stdout).toMatch(/^lease\.coordination\.k8s\.io\/apiserver-[a-z2-7]{26}\n$/);
    expect((await kedge('component', 'status', '--data-dir', cloud.dir)).stdout).toMatch(/\nscheduler +- +Running +\S+ +ok\n/);
  });
});
