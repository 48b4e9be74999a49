import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { distDir } from '../../shared/repo-paths.js';
import { startEtcdCluster, type EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { isRunning } from '../support/processes.js';
import { waitFor } from '../support/wait.js';


/** Whether an etcd member answers on its client URL (etcd's /health says true with a quorum). */
async function healthy(endpoint: string): Promise<boolean> {
  const res = await fetch(`${endpoint}/health`).catch(() => undefined);
  return res?.ok === true && ((await res.json()) as { health?: string }).health === 'true';
}

describe('etcd members as local processes (sim/etcd)', () => {
  let cluster: EtcdCluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('starts three members on distinct ports and data dirs; stops, kills and starts one; close removes everything', async () => {
    cluster = await startEtcdCluster({ size: 3, clock: realClock });
    const { members, endpoints } = cluster;
    expect(new Set(members.flatMap((m) => [m.clientPort, m.peerPort])).size).toBe(6);
    expect(new Set(members.map((m) => m.dataDir)).size).toBe(3);
    for (const endpoint of endpoints) expect(await healthy(endpoint)).toBe(true);

    await cluster.stop(0);
    expect(cluster.isRunning(0)).toBe(false);
    expect(await healthy(endpoints[0]!)).toBe(false);
    await cluster.kill(1);
    expect(cluster.isRunning(1)).toBe(false);
    await cluster.start(0); // two of three: a quorum again, so it serves
    expect(await healthy(endpoints[0]!)).toBe(true);
    await expect(cluster.start(0)).rejects.toThrow(/is running/);

    const root = dirname(members[0]!.dataDir);
    const pids = await Promise.all([0, 1, 2].map((i) => cluster!.pid(i)));
    await cluster.close();
    cluster = undefined;
    expect(existsSync(root)).toBe(false);
    for (const pid of pids) expect(await isRunning(pid!)).toBe(false);
  }, 60_000);

  it('takes its members down when the process that started them is killed (-9)', async () => {
    const launcher = `
      const { startEtcdCluster } = await import(${JSON.stringify(pathToFileURL(join(distDir, 'sim/etcd/etcd-cluster.js')).href)});
      const { realClock } = await import(${JSON.stringify(pathToFileURL(join(distDir, 'shared/clock.js')).href)});
      const cluster = await startEtcdCluster({ clock: realClock });
      console.log('member', await cluster.pid(0), cluster.members[0].dataDir);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', launcher], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => createInterface({ input: parent.stdout }).once('line', resolve));
    const [, pid, dataDir] = line.split(' ');
    try {
      expect(await isRunning(Number(pid))).toBe(true);
      parent.kill('SIGKILL');
      await waitFor(async () => !(await isRunning(Number(pid))), 'the member to die with its parent', 10_000);
    } finally {
      parent.kill('SIGKILL');
      await rm(dirname(dataDir!), { recursive: true, force: true });
    }
  });
});
