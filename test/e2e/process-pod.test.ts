import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { ContainerStatus, Pod } from '../../shared/types.js';
import { edgeDataDir, startDemo, type Demo } from '../../sim/demo.js';
import { freePort } from '../support/free-port.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, KUBECTL, kubectlIn } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';
import { testNetwork } from '../support/test-network.js';

const TIME_SCALE = 10;
/** CrashLoopBackOff's first wait, 10 s, at that time scale. */
const FIRST_BACKOFF_MS = 10_000 / TIME_SCALE;

/** examples/process-pod.yaml with its port (the PORT env and every probe's) replaced by `port`. */
async function echoServerOn(port: number): Promise<string> {
  const pod = parse(await readFile('examples/process-pod.yaml', 'utf8')) as Pod;
  const container = pod.spec.containers[0]!;
  const env = container.env as { name: string; value: string }[];
  const probes = [container.readinessProbe, container.livenessProbe].filter((p) => p !== undefined);
  expect(probes.map((p) => String(p.httpGet!.port))).toEqual(probes.map(() => env.find((e) => e.name === 'PORT')!.value));
  env.find((e) => e.name === 'PORT')!.value = String(port);
  for (const probe of probes) probe.httpGet!.port = port;
  return stringify(pod);
}

/** A pod on the process runtime whose container exits with code 3 after half a second, every time. */
const crasher: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'crasher' },
  spec: { runtimeClassName: 'process', containers: [{ name: 'main', image: 'node', command: ['node', '-e', 'setTimeout(() => process.exit(3), 500)'] }] },
};

const statusOf = (pod: Pod | undefined): ContainerStatus | undefined => pod?.status?.containerStatuses?.[0];
const isReady = (pod: Pod | undefined): boolean => pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const pidIn = (body: string): number => Number(/ pid=(\d+)$/m.exec(body)?.[1]);

/**
 * examples/process-pod.yaml on the process runtime, with real `kedge cloud` and `kedge edge`
 * processes (the edge behind its link proxy), the real kubectl, and the container's own
 * process killed, outliving a kill -9 of the edge, and restarted with the cable pulled.
 */
describe.skipIf(!hasKubectl)('a process pod: probes, logs, restarts, adoption and autonomy', () => {
  let dir: string;
  let demo: Demo;
  let kubectl: ReturnType<typeof kubectlIn>;
  let port: number;
  /** examples/service.yaml's echo port (8080) in the copy here. */
  let echoPort: number;
  /** echo-server's pod IP, where it listens (a loopback address of this machine). */
  let podIP: string;
  let follower: ChildProcess | undefined;

  const ask = async (path: string): Promise<string> => (await fetch(`http://${podIP}:${port}${path}`)).text();
  const cloudPod = async (name: string): Promise<Pod | undefined> => {
    const run = await kubectl('get', 'pod', name, '-o', 'json');
    return run.code === 0 ? (JSON.parse(run.stdout) as Pod) : undefined;
  };
  const edgeApi = async <T>(path: string): Promise<T> => (await (await fetch(`${demo.nodes[0]!.localApiUrl}${path}`)).json()) as T;
  const edgePod = async (name: string): Promise<Pod | undefined> =>
    (await edgeApi<{ items: Pod[] }>('/pods')).items.find((p) => p.metadata.name === name);
  const connected = async (): Promise<boolean> => (await edgeApi<{ connected: boolean }>('/connection')).connected;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-process-pod-'));
    port = await freePort();
    echoPort = await freePort();
    demo = await startDemo({ nodes: 1, dataDir: dir, apiPort: 0, mqttPort: 0, localApiBasePort: 0, timeScale: TIME_SCALE, clock: realClock, logger: silentLogger });
    kubectl = kubectlIn(dir, demo.kubeconfigPath);
    await writeFile(join(dir, 'echo-server.yaml'), await echoServerOn(port));
    await writeFile(join(dir, 'crasher.json'), JSON.stringify(crasher));
    const services = await readFile('examples/service.yaml', 'utf8');
    await writeFile(join(dir, 'service.yaml'), services.replaceAll('8080', String(echoPort)).replace('replicas: 3', 'replicas: 1'));
  });

  afterAll(async () => {
    follower?.kill('SIGKILL');
    await demo?.stop();
    // The container processes outlive the edge by design: a reboot of its runtime kills them.
    if (dir) await ProcessRuntime.open({ network: testNetwork(), dataDir: edgeDataDir(dir, 'edge-1'), clock: realClock, reboot: true });
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('echo-server becomes Ready through its readiness probe and answers HTTP', async () => {
    expect(await kubectl('apply', '-f', join(dir, 'echo-server.yaml'))).toMatchObject({ code: 0, stdout: 'pod/echo-server created\n' });
    const pod = await waitFor(async () => {
      const p = await cloudPod('echo-server');
      return isReady(p) && p;
    }, 'echo-server Ready', 15_000, 100);
    expect(pod.spec.nodeName).toBe('edge-1');
    expect(pod.spec.containers[0]!.readinessProbe?.httpGet?.port).toBe(port);
    podIP = pod.status!.podIP!;
    expect(podIP).toMatch(/^127\./);
    if (process.platform === 'linux') expect(podIP).not.toBe('127.0.0.1'); // the demo's edge-1 is 127.0.1.1 there
    expect(await ask('/hello?x=1')).toMatch(/^GET \/hello\?x=1 pid=\d+\n$/);
    // Ready came from the probe: the server was asked for /healthz by then.
    expect((await kubectl('logs', 'echo-server')).stdout).toMatch(/^GET \/healthz$/m);
  });

  it('kubectl top pods lists echo-server with the memory its process uses, and top nodes edge-1', async () => {
    // A sample every metricsResolutionMs (15 s, 1.5 s at this time scale), from /proc.
    const row = await waitFor(async () => {
      const top = await kubectl('top', 'pods');
      const match = /^echo-server\s+(\d+)m\s+(\d+)Mi\s*$/m.exec(top.stdout);
      return match !== null && Number(match[2]) > 0 ? match : undefined;
    }, 'echo-server in kubectl top pods', 15_000, 250);
    expect(Number(row[1]) + Number(row[2])).toBeGreaterThan(0);
    expect((await kubectl('top', 'nodes')).stdout).toMatch(/^edge-1\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*$/m);
  });

  it('kubectl logs -f shows one new line per request', async () => {
    const lines: string[] = [];
    follower = spawn(KUBECTL, ['--cache-dir', join(dir, 'kube-cache'), 'logs', '-f', 'echo-server'], {
      env: { ...process.env, HOME: dir, KUBECONFIG: demo.kubeconfigPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(follower, 'exit');
    createInterface({ input: follower.stdout! }).on('line', (line) => lines.push(line));
    await waitFor(() => lines.includes(`listening on ${podIP}:${port}`), 'the log so far', 10_000, 20);

    for (const n of [1, 2, 3]) await ask(`/follow/${n}`);
    const mine = (): string[] => lines.filter((l) => l.startsWith('GET /follow/'));
    await waitFor(() => mine().length >= 3, 'three new lines', 10_000, 20);
    expect(mine()).toEqual(['GET /follow/1', 'GET /follow/2', 'GET /follow/3']);

    expect(follower.exitCode).toBeNull(); // still following
    follower.kill('SIGTERM');
    await exited;
  });

  /** Kills the echo server's process; resolves with how long until another one answered. */
  async function killEchoServer(): Promise<number> {
    const killed = pidIn(await ask('/who'));
    const killedAt = realClock.now();
    process.kill(killed, 'SIGKILL');
    await waitFor(async () => {
      const body = await ask('/who').catch(() => undefined);
      return body !== undefined && pidIn(body) !== killed;
    }, 'a new echo-server process', 15_000, 20);
    return realClock.now() - killedAt;
  }

  const readyWithRestarts = (count: number) =>
    waitFor(async () => {
      const p = await cloudPod('echo-server');
      return isReady(p) && statusOf(p)?.restartCount === count && p;
    }, `restartCount ${count} and Ready`, 15_000, 100);

  it('its process killed, it runs again at once; killed again, after the CrashLoopBackOff delay', async () => {
    await killEchoServer(); // the kubelet's first restart of a container has no back-off
    await readyWithRestarts(1);
    expect(await killEchoServer()).toBeGreaterThanOrEqual(FIRST_BACKOFF_MS);
    const pod = await readyWithRestarts(2);
    expect(statusOf(pod)!.lastState.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
    expect(statusOf(pod)!.state.running).toBeDefined();
  });

  it('outlives a kill -9 of the edge, and the restarted edge adopts it', async () => {
    const pid = pidIn(await ask('/who'));
    const containerID = statusOf(await cloudPod('echo-server'))!.containerID;
    expect(containerID).toBeDefined();

    await demo.edges.get('edge-1')!.kill();
    expect(pidIn(await ask('/edge-down'))).toBe(pid);

    await demo.restartEdge('edge-1', { crash: true });
    const adopted = await waitFor(async () => {
      const p = await edgePod('echo-server');
      return isReady(p) && p;
    }, 'the new edge process to see echo-server Ready', 15_000, 50);
    expect(statusOf(adopted)).toMatchObject({ containerID, restartCount: 2, ready: true });
    expect(pidIn(await ask('/edge-up'))).toBe(pid);
    await waitFor(async () => (await connected()) && isReady(await cloudPod('echo-server')), 'the cloud to see it Ready', 15_000, 100);
    expect(statusOf(await cloudPod('echo-server'))).toMatchObject({ containerID, restartCount: 2 });
  });

  it('with the cable pulled, a crashing container is still restarted; the cloud catches up on heal', async () => {
    expect((await kubectl('create', '-f', join(dir, 'crasher.json'))).code).toBe(0);
    await waitFor(async () => statusOf(await edgePod('crasher'))?.containerID, 'crasher on the edge', 15_000, 50);

    expect((await kedge('link', 'cut', 'edge-1', '--data-dir', dir)).code).toBe(0);
    await waitFor(async () => !(await connected()), 'the edge to notice the cut', 15_000, 50);
    const edgeCount = async (): Promise<number> => statusOf(await edgePod('crasher'))?.restartCount ?? 0;
    const cloudCount = async (): Promise<number> => statusOf(await cloudPod('crasher'))?.restartCount ?? 0;
    const atCut = await edgeCount();
    const cloudAtCut = await cloudCount();

    const offline = await waitFor(async () => {
      const count = await edgeCount();
      return count >= atCut + 2 && count;
    }, 'two more restarts offline', 15_000, 50);
    expect(await connected()).toBe(false);
    expect(await cloudCount()).toBe(cloudAtCut);
    expect(cloudAtCut).toBeLessThan(offline);

    expect((await kedge('link', 'heal', 'edge-1', '--data-dir', dir)).code).toBe(0);
    await waitFor(async () => (await cloudCount()) >= offline, `the cloud to see restartCount ${offline}`, 15_000, 100);
  });

  it("examples/service.yaml applies, and its echo pod answers on its own pod IP", async () => {
    const applied = await kubectl('apply', '-f', join(dir, 'service.yaml'));
    expect(applied.stdout).toBe('service/echo created\nservice/echo-nodeport created\ndeployment.apps/echo created\npod/echo-client created\n');
    const pod = await waitFor(async () => {
      const list = JSON.parse((await kubectl('get', 'pods', '-l', 'app=echo', '-o', 'json')).stdout) as { items: Pod[] };
      return list.items.find(isReady);
    }, 'an echo pod Ready', 15_000, 100);
    const ip = pod.status!.podIP!;
    expect(await (await fetch(`http://${ip}:${echoPort}/`)).text()).toBe(`hello from ${pod.metadata.name} on edge-1 (${ip})\n`);
  });
});
