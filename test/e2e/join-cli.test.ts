import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { startRole, readyField, type RoleProcess } from '../../sim/role-process.js';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

/**
 * A cloud bound beyond loopback (TLS only) and an edge that joins it with
 * `kedge token create --node` and `kedge edge --cloud --token`, as real processes.
 */
describe('kedge edge --cloud --token (real processes, TLS only)', () => {
  let cloud: CloudProcess | undefined;
  let edge: RoleProcess | undefined;
  let api: string;
  const edgeLines: string[] = [];

  beforeAll(async () => {
    cloud = await startCloudProcess('join', ['--bind', '0.0.0.0', '--time-scale', '10']);
    api = readyField(await cloud.cloud.ready, 'api');
  });
  afterAll(async () => {
    await edge?.stop();
    await cloud?.stop();
  });

  it('serves https and mqtts only, and kubectl trusts it through the CA in the kubeconfig', async () => {
    const ready = await cloud!.cloud.ready;
    expect(api).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(readyField(ready, 'mqtt')).toMatch(/^mqtts:\/\/127\.0\.0\.1:\d+$/);
    const plain = await fetch(api.replace('https:', 'http:') + '/version').then((r) => r.status);
    expect(plain).toBe(400);
    if (hasKubectl) {
      const run = await kubectlIn(cloud!.dir, join(cloud!.dir, 'kubeconfig'))('get', 'namespaces', '-o', 'name');
      expect(run.stdout).toContain('namespace/kube-system');
    }
  });

  it('prints a join token alone on the last line; the edge joins with it, connects over mqtts and its node gets Ready at its --node-ip', async () => {
    const out = await kedge('token', 'create', '--node', 'edge-1', '--data-dir', cloud!.dir);
    expect([out.code, out.stderr]).toEqual([0, '']);
    const token = out.stdout.trimEnd().split('\n').at(-1)!;
    expect(out.stdout).toContain(`kedge token revoke ${token.slice(-23, -17)} --data-dir ${cloud!.dir}`);
    expect(token).toMatch(/^K10[0-9a-f]{64}::[a-z0-9]{6}\.[a-z0-9]{16}$/);
    edge = startRole({
      name: 'edge-1',
      args: ['edge', '--node', 'edge-1', '--cloud', api, '--token', token, '--data-dir', join(cloud!.dir, 'edge-1'), '--local-api-port', '0', '--time-scale', '10', '--node-ip', '192.0.2.10'],
      readyPattern: /^kedge edge edge-1 ready /,
      clock: realClock,
      onLine: (l) => edgeLines.push(l),
    });
    await edge.ready;
    await waitFor(() => edgeLines.some((l) => l.includes('connected {"broker":"mqtts://127.0.0.1')), 'the edge on mqtts', 15_000);
    if (hasKubectl) {
      const kubectl = kubectlIn(cloud!.dir, join(cloud!.dir, 'kubeconfig'));
      const jsonpath = 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address} {.status.conditions[?(@.type=="Ready")].status}';
      await waitFor(async () => (await kubectl('get', 'node', 'edge-1', '-o', jsonpath)).stdout === '192.0.2.10 True', 'edge-1 Ready at its --node-ip', 15_000, 200);
    }
    const list = await kedge('token', 'list', '--data-dir', cloud!.dir);
    expect(list.stdout).toMatch(/\n[a-z0-9]{6}\s+edge-1\s+\S+\s+edge-1\n/);
  });

  it('refuses bad CLI input with a clear message and exit code 1', async () => {
    const noFor = await kedge('token', 'create', '--data-dir', cloud!.dir);
    expect([noFor.code, noFor.stderr]).toEqual([1, 'error: say what the token is for: --node <name> or --bootstrap (a join token), or --role admin|viewer|node (an API token)\n']);
    const badTtl = await kedge('token', 'create', '--bootstrap', '--ttl', 'soon', '--data-dir', cloud!.dir);
    expect([badTtl.code, badTtl.stderr]).toEqual([1, 'error: --ttl: "soon" is not a duration such as 24h, 90m or 0 (never expires)\n']);
    const unknown = await kedge('token', 'revoke', 'zzzzzz', '--data-dir', cloud!.dir);
    expect([unknown.code, unknown.stderr]).toEqual([1, `error: no join token zzzzzz (kedge token list --data-dir ${cloud!.dir} shows them)\n`]);
    const badToken = await kedge('edge', '--node', 'x', '--cloud', api, '--token', 'nope', '--data-dir', join(cloud!.dir, 'x'));
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toContain('not a join token: expected K10');
  });
});
