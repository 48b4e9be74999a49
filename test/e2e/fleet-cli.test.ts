import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEdgeToken } from '../../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { realClock } from '../../shared/clock.js';
import type { ObjectList, Pod } from '../../shared/types.js';
import type { LinkState } from '../../sim/link-proxy.js';
import type { LinkTotals } from '../../sim/control-api.js';
import { FLEET_FILE } from '../../sim/fleet.js';
import { FLEET_LABEL, readKubeconfig } from '../../sim/fleet-pods.js';
import { readyField, startRole, type RoleProcess } from '../../sim/role-process.js';
import { waitFor } from '../support/wait.js';


/** `kedge fleet` against a `kedge cloud` process: hollow nodes register, created pods run. */
describe('kedge fleet as a process', () => {
  let dir: string;
  const roles: RoleProcess[] = [];
  let cloudReady: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-fleet-cli-'));
    const cloud = startRole({
      name: 'cloud',
      // Hollow edges run no agents (as the scale bench's cloud).
      args: ['cloud', '--data-dir', join(dir, 'cloud'), '--api-port', '0', '--mqtt-port', '0', '--store', 'memory', '--time-scale', '10', '--no-agent-daemonsets'],
      readyPattern: /^kedge cloud ready /,
      clock: realClock,
    });
    roles.push(cloud);
    cloudReady = await cloud.ready;
  });
  afterAll(async () => {
    await Promise.all(roles.map((r) => r.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses --pods-per-node without a kubeconfig, with a clear message', async () => {
    const lines: string[] = [];
    const fleet = startRole({
      name: 'fleet',
      args: ['fleet', '--nodes', '1', '--pods-per-node', '1', '--broker', readyField(cloudReady, 'mqtt'), '--token', 'x', '--data-dir', join(dir, 'none')],
      readyPattern: /^kedge fleet ready /,
      clock: realClock,
      onLine: (l) => lines.push(l),
    });
    expect(await fleet.exited).toBe(1);
    await expect(fleet.ready).rejects.toThrow(/--pods-per-node needs --kubeconfig/);
  });

  it('runs 3 hollow nodes, creates 6 pods that all run, and exits on SIGTERM', async () => {
    const kubeconfig = readyField(cloudReady, 'kubeconfig');
    const token = await readEdgeToken(join(dir, 'cloud'));
    const lines: string[] = [];
    const fleet = startRole({
      name: 'fleet',
      args: ['fleet', '--nodes', '3', '--pods-per-node', '2', '--broker', readyField(cloudReady, 'mqtt'), '--token', token, '--kubeconfig', kubeconfig,
        '--data-dir', join(dir, 'fleet'), '--name-prefix', 'cli', '--links', '--time-scale', '10'],
      readyPattern: /^kedge fleet ready /,
      clock: realClock,
      onLine: (l) => lines.push(l),
    });
    roles.push(fleet);
    const ready = await fleet.ready;
    expect(ready).toMatch(/^kedge fleet ready nodes=3 control=http:\/\/127\.0\.0\.1:\d+ data-dir=\S+$/);
    expect(readyField(ready, 'data-dir')).toBe(join(dir, 'fleet'));
    expect(lines).toContain('[fleet] kedge fleet: 6/6 pods created');

    const access = await readKubeconfig(kubeconfig);
    const api = createRemoteClient(access.server, access.token);
    const pods = await waitFor(async () => {
      const list = await api.list<Pod>({ resource: 'pods', namespace: 'default' }, { labelSelector: `${FLEET_LABEL}=cli` });
      return list.items.length === 6 && list.items.every((p) => p.status?.phase === 'Running') && list.items;
    }, '6 pods Running', 20_000, 100);
    expect(pods.map((p) => p.metadata.name).sort()).toEqual(['cli-1-p1', 'cli-1-p2', 'cli-2-p1', 'cli-2-p2', 'cli-3-p1', 'cli-3-p2']);

    const control = readyField(ready, 'control');
    // Its token is in the data dir only, owner-only: without it, 401.
    const fleetFile = join(dir, 'fleet', FLEET_FILE);
    expect((await stat(fleetFile)).mode & 0o777).toBe(0o600);
    const { controlUrl, controlToken } = JSON.parse(await readFile(fleetFile, 'utf8')) as { controlUrl: string; controlToken: string };
    expect(controlUrl).toBe(control);
    expect((await fetch(`${control}/links/totals`)).status).toBe(401);
    const auth = { headers: { authorization: `Bearer ${controlToken}` } };
    const totals = (await (await fetch(`${control}/links/totals`, auth)).json()) as LinkTotals;
    expect(totals).toMatchObject({ links: 3, connections: 3, cut: 0 });
    const node = pods[0]!.spec!.nodeName!;
    const held = (await (await fetch(`${control}/nodes/${node}/pods`, auth)).json()) as ObjectList<Pod>;
    expect(held.items.map((p) => p.metadata.name).sort()).toEqual(pods.filter((p) => p.spec?.nodeName === node).map((p) => p.metadata.name).sort());
    // A hollow edge's link takes a profile as a demo's does (in the fleet's cluster time), and carries its traffic shaped.
    const shaped = await fetch(`${control}/links/${node}/shape?profile=3g`, { ...auth, method: 'POST' });
    expect(((await shaped.json()) as LinkState).profile).toMatchObject({ name: '3g', latencyMs: 150 });
    await waitFor(async () => ((await (await fetch(`${control}/links/${node}`, auth)).json()) as LinkState).delayedChunks > 0, 'traffic through the shaped link', 20_000, 100);

    await fleet.stop();
    expect(await fleet.exited).toBe(0);
    await expect(stat(fleetFile)).rejects.toThrow(/ENOENT/);
    const cloud = roles[0]!;
    await cloud.stop();
    expect(await cloud.exited).toBe(0);
  });
});
