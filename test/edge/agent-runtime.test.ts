import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ComponentLogs } from '../../edge/component-logs.js';
import { derivePodStatus } from '../../edge/edged/pod-status.js';
import { AgentRuntime, componentOfImage } from '../../edge/runtime/agent-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import { FakeComponent } from './fake-component.js';
import { pod } from './fixtures.js';

const NODE_IP = '127.0.1.1';

function agents(clock = new FakeClock()) {
  const proxy = new FakeComponent('kube-proxy', clock);
  const logs = new ComponentLogs(new Set(['kube-proxy']), clock, 3);
  const runtime = new AgentRuntime({ components: () => [proxy], clock, hostIp: NODE_IP, logs: (name) => logs.lines(name) });
  return { clock, proxy, logs, runtime };
}

async function startAgent(runtime: AgentRuntime, image: string) {
  const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'kube-proxy-x7k2p', namespace: 'kube-system', runtimeHandler: 'kedge-agent' });
  const id = await runtime.createContainer(sandbox.id, { name: 'kube-proxy', image, attempt: 0 });
  await runtime.startContainer(id);
  return { sandbox, id };
}

const agentPod = (image: string) => pod('kube-proxy-x7k2p', 'u1', { hostNetwork: true, runtimeClassName: 'kedge-agent', containers: [{ name: 'kube-proxy', image }] });

describe('the kedge-agent runtime', () => {
  it('names the component of an image: kedge/<name>, a tag or digest aside', () => {
    expect(componentOfImage('kedge/kube-proxy')).toBe('kube-proxy');
    expect(componentOfImage('kedge/kedge-cni:v1.32')).toBe('kedge-cni');
    expect(componentOfImage('kedge/kube-proxy@sha256:abc')).toBe('kube-proxy');
    expect(componentOfImage('nginx:1.27')).toBe('nginx');
  });

  it("runs a kedge/<component> container at once, on the node's address; ready while the component runs", async () => {
    const { proxy, runtime } = agents();
    const { sandbox, id } = await startAgent(runtime, 'kedge/kube-proxy');
    expect(sandbox).toMatchObject({ ip: NODE_IP, state: 'ready' });
    const info = async () => (await runtime.listContainers()).find((c) => c.id === id);
    expect(await info()).toMatchObject({ state: 'running', ready: true, startedAt: expect.any(Number) });
    await proxy.stop();
    expect(await info()).toMatchObject({ state: 'running', ready: false });
    await proxy.start();
    expect(await info()).toMatchObject({ state: 'running', ready: true });
  });

  it('the pod status follows: Running and Ready, not Ready while the component is stopped; containerID kedge-agent://', async () => {
    const { clock, proxy, runtime } = agents();
    const { sandbox } = await startAgent(runtime, 'kedge/kube-proxy');
    const status = async () => derivePodStatus({ pod: agentPod('kedge/kube-proxy'), sandbox, containers: (await runtime.listContainers()).map((c) => ({ ...c, runtime: runtime.name })), runtimeName: 'sim', hostIP: NODE_IP, now: clock.now() });
    const running = await status();
    expect(running).toMatchObject({ phase: 'Running', podIP: NODE_IP });
    expect(running.containerStatuses![0]).toMatchObject({ ready: true, containerID: expect.stringMatching(/^kedge-agent:\/\/[0-9a-f]{32}$/) });
    await proxy.stop();
    const stopped = await status();
    expect(stopped.containerStatuses![0]).toMatchObject({ ready: false, state: { running: {} } });
    expect(stopped.conditions!.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', message: 'containers with unready status: [kube-proxy]' });
  });

  it('an image naming no built-in component waits as an image that cannot be pulled (ErrImagePull)', async () => {
    const { clock, runtime } = agents();
    const { sandbox, id } = await startAgent(runtime, 'kedge/etcd');
    const message = 'no built-in component "etcd" on this edge (it has kube-proxy)';
    expect((await runtime.listContainers()).find((c) => c.id === id)).toMatchObject({ state: 'created', starting: true, waiting: { reason: 'ErrImagePull', message } });
    const status = derivePodStatus({ pod: agentPod('kedge/etcd'), sandbox, containers: await runtime.listContainers(), runtimeName: 'kedge-agent', hostIP: NODE_IP, now: clock.now() });
    expect(status.phase).toBe('Pending');
    expect(status.containerStatuses![0]!.state).toEqual({ waiting: { reason: 'ErrImagePull', message } });
  });

  it("logs: the component's latest lines (a bounded ring), or one line saying where its log is", async () => {
    const { clock, logs, runtime } = agents();
    const logger = memoryLogger('edge/edge-1');
    const tapped = logs.tap(logger).child('kube-proxy').child('rules');
    for (const n of [1, 2, 3, 4]) tapped.info(`synced rules ${n}`, { services: n });
    tapped.debug('not kept');
    expect(logger.lines).toHaveLength(4); // the edge's log has its lines, as before (debug below its level)
    const { id } = await startAgent(runtime, 'kedge/kube-proxy');
    expect(await runtime.logs(id)).toEqual([2, 3, 4].map((n) => ({ time: clock.now(), text: `INFO  synced rules ${n} {"services":${n}}` })));

    const bare = new AgentRuntime({ components: () => [new FakeComponent('kedge-cni', clock)], clock, hostIp: NODE_IP });
    const cni = await startAgent(bare, 'kedge/kedge-cni');
    expect(await bare.logs(cni.id)).toEqual([{ time: clock.now(), text: "kedge-cni runs inside the edge process: its log is the edge's log" }]);
  });

  it('stop ends a container (exit code 0); start twice is a Conflict; exec is refused; unknown ids are NotFound', async () => {
    const { runtime } = agents();
    const { sandbox, id } = await startAgent(runtime, 'kedge/kube-proxy');
    await expect(runtime.startContainer(id)).rejects.toMatchObject({ code: 'Conflict' });
    await expect(runtime.exec(id, ['ls'], 1000)).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('runs inside the edge process') });
    await runtime.stopContainer(id, 30_000);
    expect((await runtime.listContainers())[0]).toMatchObject({ state: 'exited', exitCode: 0, reason: 'Completed' });
    await runtime.stopSandbox(sandbox.id);
    await runtime.removeSandbox(sandbox.id);
    expect(await runtime.listContainers()).toEqual([]);
    await expect(runtime.logs('nope')).rejects.toMatchObject({ code: 'NotFound' });
    await expect(runtime.createContainer('nope', { name: 'x', attempt: 0 })).rejects.toMatchObject({ code: 'NotFound' });
  });

  it("refuses exec streams and attach; port-forward reaches the node's address, where the component listens", async () => {
    const { runtime } = agents();
    const { sandbox, id } = await startAgent(runtime, 'kedge/kube-proxy');
    const options = { stdin: false, stdout: true, stderr: true, tty: false };
    await expect(runtime.execStream(id, ['sh'], options)).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('cannot exec in kube-proxy') });
    await expect(runtime.attach(id, options)).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('cannot attach to kube-proxy') });
    const server = createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, NODE_IP, resolve));
    const socket = await runtime.portForward(sandbox.id, (server.address() as AddressInfo).port);
    expect(await new Promise<string>((resolve) => { let text = ''; socket.on('data', (d) => (text += d)).on('end', () => resolve(text)); })).toBe('hello');
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

