import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import type { DemoFile } from '../../sim/demo-file.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const childrenOf = (pid: number): number[] =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString().split('\n').map((l) => Number(l.trim())).filter((n) => n > 0);

/** `kedge demo` as `npm start` runs it (free ports instead of 8080/1883/10551…), driven by kubectl, then Ctrl-C. */
describe.skipIf(!hasKubectl)('kedge demo', () => {
  let dir: string;
  let demo: RoleProcess;
  let file: DemoFile;
  let kubectl: ReturnType<typeof kubectlIn>;
  const lines: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-'));
    demo = startRole({
      name: 'demo',
      args: ['demo', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--local-api-base-port', '0'],
      readyPattern: /^kedge demo ready: 1 cloud, 3 edges/,
      clock: realClock,
      onLine: (line) => lines.push(line),
    });
    await demo.ready;
    file = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoFile;
    kubectl = kubectlIn(dir, join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists edge-1, edge-2 and edge-3 Ready', async () => {
    const out = await waitFor(async () => {
      const r = await kubectl('get', 'nodes', '-o', 'wide', '--no-headers');
      return r.stdout.split('\n').filter((l) => /^edge-[123]\s+Ready\s/.test(l)).length === 3 && r.stdout;
    }, 'three Ready edges', 10_000, 100);
    expect(out).toMatch(/sim:\/\/\S+/);
    // NAME STATUS ROLES AGE VERSION INTERNAL-IP …: each edge its own loopback address on Linux (--node-ip 127.0.1.i).
    const internalIPs = out.split('\n').filter((l) => /^edge-\d/.test(l)).map((l) => l.split(/\s+/).slice(0, 6)).map(([name, , , , , ip]) => `${name} ${ip}`);
    const expected = process.platform === 'linux' ? ['127.0.1.1', '127.0.1.2', '127.0.1.3'] : ['127.0.0.1', '127.0.0.1', '127.0.0.1'];
    expect(internalIPs.sort()).toEqual(expected.map((ip, i) => `edge-${i + 1} ${ip}`));
  });

  it('runs examples/pod.yaml on an edge within 5 s, lists it in that edge’s /pods, removes it on delete', async () => {
    expect((await kubectl('create', '--validate=false', '-f', 'examples/pod.yaml')).code).toBe(0);
    const node = await waitFor(async () => {
      const r = await kubectl('get', 'pod', 'hello', '-o', 'jsonpath={.status.phase} {.spec.nodeName}');
      const [phase, name] = r.stdout.split(' ');
      return phase === 'Running' && name;
    }, 'hello Running', 5_000, 100);
    const localApi = file.nodes.find((n) => n.name === node)!.localApiUrl;
    // The test's pods (in default: the kube-system agents run there too).
    const pods = async (): Promise<string[]> =>
      ((await (await fetch(`${localApi}/pods`)).json()) as { items: Pod[] }).items.filter((p) => p.metadata.namespace === 'default').map((p) => p.metadata.name!);
    expect(await pods()).toEqual(['hello']);
    expect((await kubectl('delete', 'pod', 'hello')).code).toBe(0);
    await waitFor(async () => (await pods()).length === 0, 'hello gone from the edge', 10_000, 50);
  });

  it('names its data dir, absolute, under its ready line', async () => {
    await waitFor(() => lines.includes(`[demo]   Data dir: ${dir}`), 'the Data dir line', 5_000, 20);
  });

  it('prints the dashboard link, which logs one browser in, once', async () => {
    const printed = await waitFor(() => lines.map((l) => /^\[demo\]\s+Dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(l)?.[1]).find(Boolean), 'the Dashboard line', 5_000, 20);
    expect(printed).toBe(file.dashboardUrl);
    const first = await fetch(printed);
    expect(first.status).toBe(200);
    expect(await first.text()).toMatch(/<meta name="kedge-session" content="[\w-]+">/);
    expect((await fetch(printed)).status).toBe(401);
  });

  it("keeps credentials off the edges' command lines, and its control API wants demo.json's token", async () => {
    const edgeToken = (JSON.parse(await readFile(join(dir, 'tokens.json'), 'utf8')) as { edge: string }).edge;
    const commandLines = await Promise.all(childrenOf(demo.child.pid!).map((pid) => readFile(`/proc/${pid}/cmdline`, 'utf8')));
    expect(commandLines.filter((line) => line.split('\0').includes('edge')).length).toBe(3);
    expect(commandLines.filter((line) => line.includes(edgeToken))).toEqual([]);
    expect((await fetch(`${file.controlUrl}/links`)).status).toBe(401);
    expect((await fetch(`${file.controlUrl}/links`, { headers: { authorization: `Bearer ${file.controlToken}` } })).status).toBe(200);
  });

  it('stops every process on Ctrl-C', async () => {
    const children = childrenOf(demo.child.pid!);
    expect(children).toHaveLength(4); // the cloud and three edges
    demo.child.kill('SIGINT');
    expect(await demo.exited).toBe(0);
    await waitFor(() => children.every((pid) => !alive(pid)), 'no process left behind', 10_000, 50);
  });
});
