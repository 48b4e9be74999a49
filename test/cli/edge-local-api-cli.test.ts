import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { testNetwork } from '../support/test-network.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi, type LocalApi } from '../../edge/local-api.js';
import { loadLocalApiToken } from '../../edge/local-api-token.js';
import type { LocalCache } from '../../edge/metamanager/local-cache.js';
import { AgentRuntime } from '../../edge/runtime/agent-runtime.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { RuntimeByHandler } from '../../edge/runtime/runtime-by-handler.js';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { DemoFile } from '../../sim/demo-file.js';
import { FakeComponent } from '../edge/fake-component.js';
import { nodeScript } from '../edge/process-workloads.js';
import { kedge, run } from '../support/kedge-cli.js';
import { waitFor } from '../support/wait.js';

const emptyCache = { objects: () => [], outbox: () => [] } as unknown as LocalCache;

/**
 * The built `kedge component … --node` and `kedge crictl` against an edge's local API: the real
 * one, served in this process over a sim, a process and a kedge-agent pod, with fake components.
 */
describe('kedge component --node and kedge crictl, through an edge local API', () => {
  let dir: string;
  let edgeDir: string;
  let api: LocalApi;
  let processes: ProcessRuntime;
  const proxy = new FakeComponent('kube-proxy', realClock);
  const ids: Record<string, string> = {};
  const onEdge = (...args: string[]) => kedge(...args, '--node', 'edge-1', '--data-dir', edgeDir, '--local-api', api.url);
  const crictl = (...args: string[]) => kedge('crictl', '--node', 'edge-1', '--data-dir', edgeDir, '--local-api', api.url, ...args);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edge-cli-'));
    edgeDir = join(dir, 'edge-1');
    await mkdir(edgeDir);
    processes = await ProcessRuntime.open({ dataDir: edgeDir, clock: realClock, network: testNetwork() });
    const sim = await SimRuntime.open({ network: testNetwork(), dataDir: edgeDir, clock: realClock, defaultStartMs: 0 });
    const agents = new AgentRuntime({ components: () => [proxy], clock: realClock, hostIp: '127.0.1.1' });
    const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', sim], ['process', processes], ['kedge-agent', agents]]), 'sim');
    for (const [handler, pod, image, command] of [['sim', 'web-7d9f8-abcde', 'nginx:1.27'], ['process', 'echo-5c4f9-xk2lp', 'node', nodeScript("console.log('hello'); setInterval(() => {}, 1000)").command], ['kedge-agent', 'kube-proxy-x7k2p', 'kedge/kube-proxy']] as const) {
      const sandbox = await runtime.runSandbox({ podUid: `uid-${handler}`, name: pod, namespace: handler === 'kedge-agent' ? 'kube-system' : 'default', ...(handler === 'sim' ? {} : { runtimeHandler: handler }) });
      ids[handler] = await runtime.createContainer(sandbox.id, { name: pod.split('-')[0]!, image, attempt: 0, ...(command ? { command: [...command] } : {}) });
      await runtime.startContainer(ids[handler]);
    }
    const exited = await runtime.createContainer((await runtime.listSandboxes())[0]!.id, { name: 'init', image: 'busybox', attempt: 0 });
    await runtime.stopContainer(exited, 0);
    api = await startLocalApi({ port: 0, cache: emptyCache, connectivity: () => ({ connected: false, since: 0 }), lastHeardFromBroker: () => undefined, keepaliveSeconds: 2, clock: realClock, logger: silentLogger, runtime, components: () => [proxy, new FakeComponent('kedge-cni', realClock)], token: await loadLocalApiToken(edgeDir) });
    await waitFor(async () => (await processes.logs(ids.process!)).length > 0, 'the process to say hello', 10_000, 20);
  });
  afterAll(async () => {
    await api?.close();
    await processes?.removeContainer(ids.process ?? '');
    processes?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('component status, stop and start: a table, JSON, and the state after each change', async () => {
    const table = await onEdge('component', 'status');
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/^NAME +NODE +STATUS +SINCE\nkube-proxy +edge-1 +Running +\d{4}-\S+Z\nkedge-cni +edge-1 +Running +\S+\n$/);
    const stopped = await onEdge('component', 'stop', 'kube-proxy');
    expect(stopped.stdout).toMatch(/^kube-proxy on edge-1: stopped since \d{4}-\S+Z\n$/);
    expect(proxy.running()).toBe(false);
    expect(JSON.parse((await onEdge('component', 'status', 'kube-proxy', '-o', 'json')).stdout)).toMatchObject({ name: 'kube-proxy', running: false });
    expect((await onEdge('component', 'start', 'kube-proxy')).stdout).toMatch(/^kube-proxy on edge-1: running since /);
    expect(proxy.running()).toBe(true);
  });

  it('component: clear errors and exit code 1 for an unknown component, a wrong token, an edge that does not answer', async () => {
    const unknown = await onEdge('component', 'stop', 'etcd');
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'error: no component "etcd" on this edge (its components: kube-proxy, kedge-cni)\n' });
    const otherDir = join(dir, 'other');
    await mkdir(otherDir);
    await loadLocalApiToken(otherDir); // another edge's token
    const refused = await kedge('component', 'stop', 'kube-proxy', '--node', 'edge-1', '--data-dir', otherDir, '--local-api', api.url);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('needs the bearer token in the local-api.token file');
    expect(proxy.running()).toBe(true);
    const silent = await kedge('component', 'status', '--node', 'edge-1', '--data-dir', edgeDir, '--local-api', 'http://127.0.0.1:9');
    expect(silent.code).toBe(1);
    expect(silent.stderr).toContain("edge-1's local API at http://127.0.0.1:9 does not answer");
    const nowhere = await run(process.execPath, [join(process.cwd(), 'dist/bin/kedge.js'), 'crictl', '--node', 'edge-1', 'ps'], { cwd: dir });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('give --data-dir <its data dir> and --local-api http://127.0.0.1:<its --local-api-port>');
  });

  it("crictl ps: running containers in crictl's columns, newest first; -a adds the exited", async () => {
    const ps = await crictl('ps');
    expect(ps.code).toBe(0);
    const lines = ps.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('CONTAINER           IMAGE               CREATED             STATE               NAME                ATTEMPT             POD ID              POD');
    expect(lines.slice(1).map((l) => l.split(/ {3,}/))).toEqual([
      [ids['kedge-agent']!.slice(0, 13), 'kedge/kube-proxy', expect.stringMatching(/^(Less than a second|\d+ seconds?) ago$/), 'Running', 'kube', '0', expect.stringMatching(/^[0-9a-f]{13}$/), 'kube-proxy-x7k2p'],
      [ids.process!.slice(0, 13), 'node', expect.any(String), 'Running', 'echo', '0', expect.any(String), 'echo-5c4f9-xk2lp'],
      [ids.sim!.slice(0, 13), 'nginx:1.27', expect.any(String), 'Running', 'web', '0', expect.any(String), 'web-7d9f8-abcde'],
    ]);
    expect((await crictl('ps', '-a')).stdout).toMatch(/\n[0-9a-f]{13} +busybox +.+ ago +Exited +init +0 /);
  });

  it('crictl pods: each sandbox with its runtime handler, (default) for sim', async () => {
    const pods = await crictl('pods');
    expect(pods.stdout).toMatch(/^POD ID {14}CREATED {13}STATE {15}NAME {16}NAMESPACE {11}ATTEMPT {13}RUNTIME\n/);
    expect(pods.stdout).toMatch(/\n[0-9a-f]{13} +.+ ago +Ready +kube-proxy-x7k2p +kube-system +0 +kedge-agent\n/);
    expect(pods.stdout).toMatch(/\n[0-9a-f]{13} +.+ ago +Ready +echo-5c4f9-xk2lp +default +0 +process\n/);
    expect(pods.stdout).toMatch(/\n[0-9a-f]{13} +.+ ago +Ready +web-7d9f8-abcde +default +0 +\(default\)\n/);
  });

  it('crictl inspect and logs take an ID prefix; an unknown one is an error', async () => {
    const inspect = await crictl('inspect', ids.process!.slice(0, 6));
    expect(inspect.code).toBe(0);
    const shown = JSON.parse(inspect.stdout) as { status: Record<string, unknown>; info: { pid: number; runtime: string } };
    expect(shown.status).toMatchObject({ id: ids.process, state: 'CONTAINER_RUNNING', metadata: { name: 'echo', attempt: 0 }, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), finishedAt: '1970-01-01T00:00:00Z' });
    expect(shown.status.labels).toMatchObject({ 'io.kubernetes.pod.name': 'echo-5c4f9-xk2lp', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-process', 'io.kubernetes.container.name': 'echo' });
    expect(shown.info).toMatchObject({ runtime: 'process', pid: expect.any(Number) });
    expect(await crictl('logs', ids.process!.slice(0, 6))).toMatchObject({ code: 0, stdout: 'hello\n' });
    const unknown = await crictl('logs', 'zzz');
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: no container with ID "zzz" on this edge\n' });
  });

  it('crictl stats: real CPU and memory for the process container, - for the others', async () => {
    const stats = await crictl('stats', '--seconds', '0.2');
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/^CONTAINER {11}NAME {16}CPU % {15}MEM {17}DISK {16}INODES\n/);
    expect(stats.stdout).toContain(`\n${ids.process!.slice(0, 13)}       echo`);
    expect(stats.stdout).toMatch(new RegExp(`\\n${ids.process!.slice(0, 13)} +echo +\\d+\\.\\d\\d +[\\d.]+MB +- +-\\n`));
    expect(stats.stdout).toMatch(new RegExp(`\\n${ids.sim!.slice(0, 13)} +web +- +- +- +-\\n`));
  });

  it("finds a demo's edge by demo.json and the token in <demo>/edges/<node>", async () => {
    const demoDir = join(dir, 'demo');
    await mkdir(join(demoDir, 'edges', 'edge-1'), { recursive: true });
    await writeFile(join(demoDir, 'edges', 'edge-1', 'local-api.token'), await loadLocalApiToken(edgeDir));
    const demo: DemoFile = { pid: process.pid, controlUrl: 'http://127.0.0.1:9', apiUrl: 'https://127.0.0.1:9', brokerUrl: 'mqtt://127.0.0.1:9', nodes: [{ name: 'edge-1', localApiUrl: api.url, proxyUrl: 'mqtt://127.0.0.1:9' }] };
    await writeFile(join(demoDir, 'demo.json'), JSON.stringify(demo));
    expect((await kedge('crictl', '--node', 'edge-1', '--data-dir', demoDir, 'ps')).stdout).toContain('kube-proxy-x7k2p');
    expect((await kedge('component', 'stop', 'kedge-cni', '--node', 'edge-1', '--data-dir', demoDir)).stdout).toMatch(/^kedge-cni on edge-1: stopped since /);
    const other = await kedge('crictl', 'ps', '--node', 'edge-9', '--data-dir', demoDir);
    expect(other).toMatchObject({ code: 1, stderr: `error: no node "edge-9" in the demo in ${demoDir} (its edges: edge-1)\n` });
  });
});
