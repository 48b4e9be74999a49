import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { remoteHandler } from '../../cloud/apiserver/http/remote-handler.js';
import { createLoopbackClient } from '../../cloud/apiserver/loopback-client.js';
import type { ComponentState } from '../../cloud/components/component.js';
import { realClock } from '../../shared/clock.js';
import type { DemoFile } from '../../shared/demo-file.js';
import { ETCD_BIN } from '../../sim/etcd/etcd-member.js';
import { waitForReadyNodes } from '../../sim/fleet-pods.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { isRunning, killProcessesNaming, liveProcesses } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

if (!existsSync(ETCD_BIN)) throw new Error(`${ETCD_BIN} is missing: install the Debian package etcd-server (apt-get install etcd-server)`);

/**
 * `kedge demo --etcd 3` as a user runs it: three etcd members (their own processes, data in
 * <data-dir>/etcd) under the cloud, three Ready edges, the members as components with their
 * health, `kedge demo etcd stop|start`, and Ctrl-C taking everything down.
 */
describe('kedge demo --etcd 3', () => {
  let dir: string;
  let demo: RoleProcess | undefined;
  const lines: string[] = [];

  const components = async (): Promise<ComponentState[]> => {
    const out = await kedge('component', 'status', '--data-dir', dir, '-o', 'json');
    if (out.code !== 0) throw new Error(out.stderr);
    return (JSON.parse(out.stdout) as { items: ComponentState[] }).items;
  };
  const etcdRows = async (): Promise<ComponentState[]> => (await components()).filter((c) => /^etcd-\d$/.test(c.name));
  const etcdPids = async (): Promise<number[]> => (await liveProcesses()).filter((p) => p.args[0] === ETCD_BIN && p.args.some((a) => a.startsWith(dir))).map((p) => p.pid);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-etcd-'));
    demo = startRole({
      name: 'demo',
      args: ['demo', '--etcd', '3', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--local-api-base-port', '0', '--time-scale', '10'],
      readyPattern: /^Ctrl-C stops/,
      clock: realClock,
      ownProcessGroup: true,
      onLine: (line) => lines.push(line),
    });
    await demo.ready;
  }, 60_000);
  afterAll(async () => {
    await demo?.kill();
    if (dir) await killProcessesNaming(dir);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints its members, records them in demo.json, and runs each as its own process with its data dir', async () => {
    const file = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoFile;
    expect(file.etcd?.map((m) => m.name)).toEqual(['etcd-0', 'etcd-1', 'etcd-2']);
    for (const m of file.etcd!) expect(lines.join('\n')).toContain(`${m.name}  ${m.clientUrl}`);
    expect(await etcdPids()).toHaveLength(3);
    for (const m of ['etcd-0', 'etcd-1', 'etcd-2']) expect(existsSync(join(dir, 'etcd', m, 'member'))).toBe(true);
    expect(existsSync(join(dir, 'store'))).toBe(false);
  });

  it('comes up with three Ready edges, and three healthy etcd members in kedge component status and kubectl get cs', async () => {
    const { stdout } = await kedge('component', 'status', '--data-dir', dir);
    expect(stdout).toMatch(/^etcd-0 +- +Running +\S+ +\{"health":"true"\}$/m);
    const file = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoFile;
    const api = createLoopbackClient(remoteHandler(file.apiUrl), (await readCredentials(dir))!.admin);
    await waitForReadyNodes(api, ['edge-1', 'edge-2', 'edge-3'], { clock: realClock, timeoutMs: 30_000 });
    if (hasKubectl) {
      const cs = await kubectlIn(dir, join(dir, 'kubeconfig'))('get', 'cs');
      expect(cs.stdout).toMatch(/^etcd-2 +Healthy +\{"health":"true"\}/m);
    }
    const rows = await etcdRows();
    expect(rows.map((r) => [r.name, r.healthy, r.stoppable, r.message])).toEqual([0, 1, 2].map((i) => [`etcd-${i}`, true, false, '{"health":"true"}']));
  });

  it('kedge demo etcd stop etcd-1 answers at once, and etcd-1 turns unhealthy naming the refused connection; the cloud cannot stop it', async () => {
    const file = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoFile;
    const url = file.etcd![1]!.clientUrl;
    const out = await kedge('demo', 'etcd', 'stop', 'etcd-1', '--data-dir', dir);
    expect(out).toMatchObject({ code: 0, stdout: `etcd-1 stopped (SIGTERM); its data stays (${url})\n` });
    // A stopping etcd may answer {"health":"false"} for a moment before its listener closes.
    const refusedMessage = `Get "${url}/health": dial tcp ${new URL(url).host}: connect: connection refused`;
    const down = await waitFor(async () => (await etcdRows()).find((r) => r.name === 'etcd-1' && !r.healthy && r.message === refusedMessage), 'etcd-1 unhealthy, its connection refused', 10_000, 100);
    expect(down.healthy).toBe(false);
    expect((await etcdRows()).filter((r) => r.healthy).map((r) => r.name)).toEqual(['etcd-0', 'etcd-2']);
    const refused = await kedge('component', 'stop', 'etcd-0', '--data-dir', dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('etcd-0 cannot be stopped: etcd runs outside the cloud');
    expect(refused.stderr).toContain('stop it where it runs');
    const twice = await kedge('demo', 'etcd', 'stop', 'etcd-1', '--data-dir', dir);
    expect(twice).toMatchObject({ code: 1, stderr: 'error: etcd-1 is not running\n' });
  });

  it('kedge demo --data-dir D etcd start etcd-1: it serves at once (two of three run) and is healthy again; status lists the members', async () => {
    const out = await kedge('demo', '--data-dir', dir, 'etcd', 'start', 'etcd-1');
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^etcd-1 started; it serves clients \(http:\/\/127\.0\.0\.1:\d+\)\n$/);
    await waitFor(async () => (await etcdRows()).every((r) => r.healthy), 'every member healthy again', 10_000, 100);
    const status = await kedge('demo', 'etcd', 'status', '--data-dir', dir);
    expect(status.stdout.split('\n').filter((l) => / running /.test(l))).toHaveLength(3);
  });

  it('Ctrl-C stops every member with the demo; the same data dir without --etcd is refused, naming the way out', async () => {
    const pids = await etcdPids();
    process.kill(-demo!.child.pid!, 'SIGINT');
    expect(await demo!.exited).toBe(0);
    for (const pid of pids) expect(await isRunning(pid)).toBe(false);
    const mixed = await kedge('demo', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--local-api-base-port', '0');
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toContain(`${dir} holds a demo on an etcd cluster (kedge demo --etcd) (${join(dir, 'etcd')})`);
    expect(mixed.stderr).toContain('Run it with --etcd 3, or give another --data-dir');
  }, 30_000);
});
