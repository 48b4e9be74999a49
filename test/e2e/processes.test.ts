import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEdgeToken } from '../../cloud/apiserver/auth/credentials.js';
import { realClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { readyField, startRole, type RoleProcess } from '../../sim/role-process.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';


/** `kedge cloud` and two `kedge edge` processes on free ports, driven by the real kubectl. */
describe.skipIf(!hasKubectl)('kedge cloud and kedge edge as processes', () => {
  let dir: string;
  const roles: RoleProcess[] = [];
  const localApis = new Map<string, string>();
  let kubectl: ReturnType<typeof kubectlIn>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-e2e-'));
    const cloud = startRole({
      name: 'cloud',
      args: ['cloud', '--data-dir', join(dir, 'cloud'), '--api-port', '0', '--mqtt-port', '0', '--time-scale', '10'],
      readyPattern: /^kedge cloud ready /,
      clock: realClock,
    });
    roles.push(cloud);
    const ready = await cloud.ready;
    const token = await readEdgeToken(join(dir, 'cloud'));
    for (const [i, node] of ['edge-1', 'edge-2'].entries()) {
      const edge = startRole({
        name: node,
        // --pod-cidr: pod addresses while the cloud assigns the node no podCIDR.
        args: ['edge', '--node', node, '--broker', readyField(ready, 'mqtt'), '--token', token,
          '--data-dir', join(dir, node), '--local-api-port', '0', '--time-scale', '10', '--pod-cidr', `127.32.${i}.0/24`],
        readyPattern: /^kedge edge \S+ ready /,
        clock: realClock,
      });
      roles.push(edge);
      localApis.set(node, readyField(await edge.ready, 'local-api'));
    }
    kubectl = kubectlIn(dir, readyField(ready, 'kubeconfig'));
  });

  afterAll(async () => {
    await Promise.all(roles.map((r) => r.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  /** The test's pods an edge runs (in default: the kube-system agents run there too). */
  const edgePods = async (node: string): Promise<Pod[]> =>
    ((await (await fetch(`${localApis.get(node)}/pods`)).json()) as { items: Pod[] }).items.filter((p) => p.metadata.namespace === 'default');

  it('lists both edges Ready', async () => {
    const out = await waitFor(async () => {
      const r = await kubectl('get', 'nodes', '-o', 'wide', '--no-headers');
      return r.stdout.split('\n').filter((l) => / Ready +edge /.test(l)).length === 2 && r.stdout;
    }, 'two Ready nodes', 15_000, 200);
    expect(out).toMatch(/edge-1\s+Ready\s+edge\s+\S+\s+v1\.32\.4-kedge\s+127\.0\.0\.1/);
  });

  it('runs a pod created with kubectl on an edge, and removes it on delete', async () => {
    const created = await kubectl('create', '--validate=false', '-f', 'examples/pod.yaml');
    expect(created).toMatchObject({ code: 0, stdout: 'pod/hello created\n' });
    const node = await waitFor(async () => {
      const r = await kubectl('get', 'pod', 'hello', '-o', 'jsonpath={.status.phase} {.spec.nodeName}');
      const [phase, name] = r.stdout.split(' ');
      return phase === 'Running' && name;
    }, 'hello Running', 15_000, 100);
    expect((await edgePods(node)).map((p) => p.metadata.name)).toEqual(['hello']);

    expect((await kubectl('delete', 'pod', 'hello')).code).toBe(0);
    await waitFor(async () => (await edgePods(node)).length === 0, 'hello gone from the edge', 15_000, 100);
    const gone = await kubectl('get', 'pod', 'hello');
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/NotFound/);
  });
});
