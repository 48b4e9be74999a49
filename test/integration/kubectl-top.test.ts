import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { runUntil } from '../support/settle.js';

const pods = { resource: 'pods', namespace: 'default' };
/** A real process holding 32 MiB. */
const echo: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'echo', labels: { app: 'echo' } },
  spec: {
    nodeName: 'edge-1', runtimeClassName: 'process',
    containers: [{ name: 'main', image: 'node', command: [process.execPath, '-e', 'globalThis.held = Buffer.alloc(32 * 1024 * 1024, 1); setInterval(() => {}, 1000)'] }],
  },
};
const web: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' }, annotations: { 'kedge.io/sim-usage': 'cpu=250m,memory=64Mi' } },
  spec: { nodeName: 'edge-2', containers: [{ name: 'app', image: 'kedge.io/web:1' }] },
};

/** `kubectl top` against metrics.k8s.io, served from what the edges report [SYNC-22]. */
describe.skipIf(!hasKubectl)('kubectl top', () => {
  let cluster: Cluster<FakeClock> | undefined;
  let home: string | undefined;
  afterEach(async () => {
    // A process container outlives its edge: stop it first.
    const runtime = cluster?.edge('edge-1').runtime;
    for (const c of (await runtime?.listContainers()) ?? []) await runtime!.stopContainer(c.id, 0);
    await cluster?.stop();
    cluster = undefined;
    if (home) await rm(home, { recursive: true, force: true });
    home = undefined;
  });

  it('shows nodes with values and percentages and pods with their usage, and leaves out a node that is away', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 1_000, metricsResolutionMs: 1_000 } });
    const c = cluster;
    await c.api.create(pods, echo);
    await c.api.create(pods, web);
    const running = async (name: string) => (await c.api.get<Pod>({ ...pods, name })).status?.phase === 'Running';
    await eventually(c.clock, async () => (await running('echo')) && (await running('web')), 'both pods Running', { wallTimeoutMs: 15_000 });
    const reported = (name: string) => c.cloud.hub.nodeUsages().flatMap((r) => r.usage.pods).find((p) => p.name === name);
    const kib = (name: string): number => Number.parseInt(reported(name)?.containers[0]?.memory ?? '0', 10);
    await eventually(c.clock, () => reported('web') && kib('echo') >= 32 * 1024, 'both pods reported, echo with its 32 MiB', { wallTimeoutMs: 15_000 });

    home = await mkdtemp(join(tmpdir(), 'kedge-top-'));
    const kubectl = kubectlIn(home, c.cloud.kubeconfigPath);
    const nodes = await kubectl('top', 'nodes');
    expect(nodes.stderr).toBe('');
    expect(nodes.stdout).toMatch(/^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*\n/);
    for (const node of ['edge-1', 'edge-2']) expect(nodes.stdout).toMatch(new RegExp(`^${node}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%\\s*$`, 'm'));

    const top = await kubectl('top', 'pods');
    expect(top.stderr).toBe('');
    expect(top.stdout).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\n/);
    expect(top.stdout).toMatch(/^web\s+250m\s+64Mi\s*$/m);
    const [, cpu, memory] = /^echo\s+(\d+)m\s+(\d+)Mi\s*$/m.exec(top.stdout) ?? [];
    expect(Number(memory)).toBeGreaterThanOrEqual(32); // its process's resident memory, from /proc
    expect(Number(cpu) + Number(memory)).toBeGreaterThan(0);
    expect((await kubectl('top', 'pods', '-l', 'app=web')).stdout).not.toMatch(/^echo/m);
    const got = await kubectl('get', 'pods.metrics.k8s.io', 'web');
    expect(got.stderr).toBe('');
    expect(got.stdout).toMatch(/^NAME\s+CPU\s+MEMORY\s+WINDOW\s*\nweb\s+250m\s+64Mi\s+1s\s*$/);

    c.cut('edge-2');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-2'), 'the hub to notice', { budgetMs: 3 * c.timing.keepaliveMs });
    const away = await kubectl('top', 'nodes');
    expect(away.stdout).toMatch(/^edge-1\s+\d+m\s+\d+%/m);
    expect(away.stdout).toMatch(/^edge-2\s+<unknown>\s+<unknown>\s+<unknown>\s+<unknown>\s*$/m);
    const awayPods = await kubectl('top', 'pods');
    expect(awayPods.stdout).toMatch(/^echo\s/m);
    expect(awayPods.stdout).not.toMatch(/^web\s/m);
  });
});
