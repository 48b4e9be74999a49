import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';

/** `kedge cloud --disable …` as a process, driven by `kedge component` and read by the real kubectl. */
describe('kedge component against a running cloud', () => {
  let dir: string;
  let cloudProcess: CloudProcess | undefined;

  beforeAll(async () => {
    cloudProcess = await startCloudProcess('component', ['--disable', 'scheduler,controller-manager']);
    dir = cloudProcess.dir;
  });
  afterAll(async () => {
    await cloudProcess?.stop();
  });

  it('starts without the disabled components, and starts and stops them on request', async () => {
    const before = await kedge('component', 'status', '--data-dir', dir, '-o', 'json');
    expect(before.code).toBe(0);
    const running = (out: string): string[] => (JSON.parse(out) as { items: { name: string; running: boolean }[] }).items.filter((c) => c.running).map((c) => c.name);
    expect(running(before.stdout)).toEqual(['apiserver', 'store', 'broker', 'hub']);

    const started = await kedge('component', 'start', 'scheduler', '--data-dir', dir);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^scheduler: running since /);
    await kedge('component', 'start', 'controller-manager', '--data-dir', dir);
    const table = await kedge('component', 'status', '--data-dir', dir);
    expect(table.stdout).toMatch(/^NAME +PARENT +STATUS +SINCE +MESSAGE/);
    expect(table.stdout).toMatch(/\nscheduler +- +Running /);
    expect(table.stdout).toMatch(/\ncontroller-manager +- +Running /);

    const stopped = await kedge('component', 'stop', 'scheduler', '--data-dir', dir);
    expect(stopped.stdout).toMatch(/^scheduler: stopped since /);
    expect(running((await kedge('component', 'status', '--data-dir', dir, '-o', 'json')).stdout)).not.toContain('scheduler');
  });

  it('stops and starts the store; refuses to stop the apiserver, saying why', async () => {
    expect((await kedge('component', 'stop', 'store', '--data-dir', dir)).stdout).toMatch(/^store: stopped since /);
    expect((await kedge('component', 'status', '--data-dir', dir)).stdout).toMatch(/\nstore +- +Stopped /);
    expect((await kedge('component', 'start', 'store', '--data-dir', dir)).stdout).toMatch(/^store: running since /);
    const apiserver = await kedge('component', 'stop', 'apiserver', '--data-dir', dir);
    expect(apiserver.code).toBe(1);
    expect(apiserver.stderr).toContain('apiserver cannot be stopped: every request goes through it');
  });

  it.runIf(hasKubectl)('kubectl get componentstatuses lists them with their health', async () => {
    const kubectl = kubectlIn(dir, join(dir, 'kubeconfig'));
    const out = await kubectl('get', 'componentstatuses');
    expect(out.code).toBe(0);
    expect(out.stderr).toBe('Warning: v1 ComponentStatus is deprecated in v1.19+\n');
    expect(out.stdout).toMatch(/^NAME +STATUS +MESSAGE +ERROR/);
    expect(out.stdout).toMatch(/\ncontroller-manager +Healthy +ok/);
    for (const part of ['apiserver', 'store', 'broker', 'hub']) expect(out.stdout).toMatch(new RegExp(`\\n${part} +Healthy +ok`));
    expect(out.stdout).toMatch(/\nscheduler +Unhealthy +stopped \(since /);

    await kedge('component', 'stop', 'store', '--data-dir', dir);
    expect((await kubectl('get', 'cs')).stdout).toMatch(/\nstore +Unhealthy +stopped \(since /);
    const pods = await kubectl('get', 'pods');
    expect(pods.code).toBe(1);
    expect(pods.stderr).toContain('Error from server (ServiceUnavailable): the store is down (stopped with kedge component stop store)');
    await kedge('component', 'start', 'store', '--data-dir', dir);
    expect((await kubectl('get', 'pods')).code).toBe(0);
  });

  it('names the problem and exits 1 for an unknown component or a missing cloud', async () => {
    const unknown = await kedge('component', 'stop', 'kube-proxy', '--data-dir', dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no component named "kube-proxy"');
    const missing = await kedge('component', 'status', '--data-dir', join(dir, 'nowhere'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no kedge cloud found with data dir');
  });
});

describe('npx kedge', () => {
  it('runs the built command as a user types it (the bin is executable)', async () => {
    const { execFile } = await import('node:child_process');
    const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile('npx', ['--no-install', 'kedge', '--help'], (err, stdout) => resolve({ code: err ? 1 : 0, stdout }));
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: kedge /);
  }, 120_000); // npx alone takes tens of seconds on a loaded machine
});
