import { mkdtemp, rm } from 'node:fs/promises';
import { testNetwork } from '../support/test-network.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerByPrefix, type CriContainer, type CriContainerStatus, type CriPodSandbox } from '../../edge/cri/cri-view.js';
import type { CriContainerStats } from '../../edge/cri/cri-routes.js';
import { startLocalApi, type LocalApi } from '../../edge/local-api.js';
import type { LocalCache } from '../../edge/metamanager/local-cache.js';
import { AgentRuntime } from '../../edge/runtime/agent-runtime.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { RuntimeByHandler } from '../../edge/runtime/runtime-by-handler.js';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { waitFor } from '../support/wait.js';
import { FakeComponent } from './fake-component.js';
import { nodeScript } from './process-workloads.js';

const emptyCache = { objects: () => [], outbox: () => [] } as unknown as LocalCache;
const BUSY = "console.log('one'); console.log('two'); console.log('three'); const b = Buffer.alloc(8e6, 1); setInterval(() => b.fill(2), 50);";

/** The local API's CRI reads (/cri/...), from a runtime holding a sim, a process and a kedge-agent pod, and no cloud at all. */
describe("the edge's local API: CRI reads", () => {
  let dir: string;
  let api: LocalApi;
  let processes: ProcessRuntime;
  const ids: Record<string, string> = {};
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${api.url}${path}`)).json()) as T;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-cri-'));
    processes = await ProcessRuntime.open({ dataDir: dir, clock, network: testNetwork() });
    const sim = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: 0 });
    const agents = new AgentRuntime({ components: () => [new FakeComponent('kube-proxy', clock)], clock, hostIp: '127.0.1.1' });
    const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', sim], ['process', processes], ['kedge-agent', agents]]), 'sim');
    const run = async (handler: string, name: string, image: string, command?: string[]) => {
      const sandbox = await runtime.runSandbox({ podUid: `uid-${handler}`, name, namespace: handler === 'kedge-agent' ? 'kube-system' : 'default', ...(handler === 'sim' ? {} : { runtimeHandler: handler }) });
      const id = await runtime.createContainer(sandbox.id, { name: 'app', image, attempt: 0, ...(command ? { command } : {}), mounts: [{ name: 'data', containerPath: '/data', hostPath: dir, readOnly: true }] });
      await runtime.startContainer(id);
      ids[handler] = id;
    };
    await run('sim', 'web', 'nginx:1.27');
    await run('process', 'ticker', 'node', nodeScript(BUSY).command);
    await run('kedge-agent', 'kube-proxy-x7k2p', 'kedge/kube-proxy');
    await clock.advance(1);
    api = await startLocalApi({ port: 0, cache: emptyCache, connectivity: () => ({ connected: false, since: 0 }), lastHeardFromBroker: () => undefined, keepaliveSeconds: 2, clock, logger: silentLogger, runtime });
    await waitFor(async () => (await fetch(`${api.url}/cri/containers/${ids.process}/logs`).then((r) => r.text())).includes('three'), 'the process to write its lines', 10_000, 20);
  });
  afterAll(async () => {
    await api?.close();
    await processes?.removeContainer(ids.process ?? '');
    processes?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('/cri/pods: every sandbox, CRI-shaped, with its runtime handler ("" for the default)', async () => {
    const { items } = await get<{ items: CriPodSandbox[] }>('/cri/pods');
    expect(items.map((p) => [p.metadata.name, p.metadata.namespace, p.state, p.runtimeHandler])).toEqual([
      ['web', 'default', 'SANDBOX_READY', ''],
      ['ticker', 'default', 'SANDBOX_READY', 'process'],
      ['kube-proxy-x7k2p', 'kube-system', 'SANDBOX_READY', 'kedge-agent'],
    ]);
    expect(items[0]).toMatchObject({ createdAt: `${Date.UTC(2026, 0, 1)}000000`, labels: { 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-sim' } });
  });

  it('/cri/containers: every container with its pod, image, state and labels', async () => {
    const { containers } = await get<{ containers: CriContainer[] }>('/cri/containers');
    expect(containers.map((c) => [c.id, c.image.image, c.state, c.metadata])).toEqual([
      [ids.sim, 'nginx:1.27', 'CONTAINER_RUNNING', { name: 'app', attempt: 0 }],
      [ids.process, 'node', 'CONTAINER_RUNNING', { name: 'app', attempt: 0 }],
      [ids['kedge-agent'], 'kedge/kube-proxy', 'CONTAINER_RUNNING', { name: 'app', attempt: 0 }],
    ]);
    expect(containers[1]!.labels).toEqual({ 'io.kubernetes.container.name': 'app', 'io.kubernetes.pod.name': 'ticker', 'io.kubernetes.pod.namespace': 'default', 'io.kubernetes.pod.uid': 'uid-process' });
  });

  it('/cri/containers/<id prefix>: the status crictl inspect shows, with the pid of a process container', async () => {
    const inspected = await get<CriContainerStatus>(`/cri/containers/${ids.process!.slice(0, 8)}`);
    expect(inspected.status).toMatchObject({ id: ids.process, state: 'CONTAINER_RUNNING', finishedAt: '0', mounts: [{ containerPath: '/data', hostPath: dir, readonly: true, propagation: 'PROPAGATION_PRIVATE' }] });
    expect(inspected.info).toMatchObject({ runtime: 'process', pid: expect.any(Number) });
    expect(await get<CriContainerStatus>(`/cri/containers/${ids.sim}`)).toMatchObject({ info: { runtime: 'sim' } });
    expect((await get<CriContainerStatus>(`/cri/containers/${ids.sim}`)).info.pid).toBeUndefined();
  });

  it('an unknown id is a 404; a prefix of several containers is refused, naming them', async () => {
    const unknown = await fetch(`${api.url}/cri/containers/zzz`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'NotFound', message: 'no container with ID "zzz" on this edge' });
    const two = [ids.sim!, ids.process!].map((id, n) => ({ id: `abc${n}${id}`, sandboxId: 's', podUid: 'u', name: 'app', attempt: 0, image: '', state: 'running' as const, createdAt: 0 }));
    expect(containerByPrefix(two, 'abc1').id).toBe(two[1]!.id);
    expect(() => containerByPrefix(two, 'abc')).toThrow(`container ID prefix "abc" is ambiguous: it matches 2 containers (${two[0]!.id.slice(0, 13)}, ${two[1]!.id.slice(0, 13)}); give more of it`);
  });

  it('/cri/containers/<id>/logs: its output as text; ?tail and ?timestamps as crictl logs takes them', async () => {
    const text = (path: string) => fetch(`${api.url}${path}`).then((r) => r.text());
    expect(await text(`/cri/containers/${ids.process}/logs`)).toBe('one\ntwo\nthree\n');
    expect(await text(`/cri/containers/${ids.process}/logs?tail=1`)).toBe('three\n');
    expect(await text(`/cri/containers/${ids.process}/logs?tail=1&timestamps=true`)).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z three\n$/);
  });

  it('/cri/stats: CPU and memory of a process container from /proc; none for a simulated one', async () => {
    const { stats } = await get<{ stats: CriContainerStats[] }>('/cri/stats');
    const of = (id: string | undefined) => stats.find((s) => s.attributes.id === id)!;
    expect(of(ids.sim)).toMatchObject({ cpu: null, memory: null });
    expect(of(ids['kedge-agent'])).toMatchObject({ cpu: null, memory: null });
    const process = of(ids.process);
    expect(Number(process.memory!.workingSetBytes.value)).toBeGreaterThan(8e6);
    expect(Number(process.cpu!.usageCoreNanoSeconds.value)).toBeGreaterThan(0);
  });

  it('takes only GET: other methods are a 405', async () => {
    const res = await fetch(`${api.url}/cri/containers`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: 'MethodNotAllowed' });
  });
});
