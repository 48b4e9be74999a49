import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { SIM_USAGE_DEFAULT, simUsageOf, usageQuantities } from '../../edge/metrics/sim-usage.js';
import { UsageCollector, type Measured } from '../../edge/metrics/usage-collector.js';
import { startUsageReports } from '../../edge/metrics/usage-reports.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { UpDraft } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';

const pod = (name: string, uid: string, annotations?: Record<string, string>): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid, ...(annotations ? { annotations } : {}) }, spec: { containers: [{ name: 'c' }] },
});
const container = (id: string, podUid: string, runtime: string, extra: Partial<ContainerInfo> = {}): ContainerInfo => ({
  id, sandboxId: `s-${podUid}`, podUid, name: 'c', attempt: 0, image: 'i', state: 'running', createdAt: 0, runtime, ...extra,
});

/** A node with a process pod (group 42), a simulated pod, an agent pod, and a /proc and an edge process the test sets. */
function node(clock: FakeClock) {
  const proc = new Map<number, Measured>([[42, { cpuNs: 0, memoryBytes: 10 * 1024 * 1024 }]]);
  let self: Measured = { cpuNs: 0, memoryBytes: 50 * 1024 * 1024 };
  const containers = [
    container('p1', 'u-proc', 'process', { startedAt: clock.now() }),
    container('s1', 'u-sim', 'sim'),
    container('a1', 'u-agent', 'kedge-agent'),
    container('gone', 'u-not-mine', 'sim'), // a pod the cache does not hold (any more)
  ];
  const collector = new UsageCollector({
    runtime: { listContainers: async () => containers, processOf: async (id) => (id === 'p1' ? { group: 42 } : undefined) },
    pods: () => [pod('proc', 'u-proc'), pod('sim', 'u-sim', { 'kedge.io/sim-usage': 'cpu=250m,memory=64Mi' }), pod('agent', 'u-agent'), pod('idle', 'u-idle')],
    clock,
    readGroups: async (groups) => new Map(groups.flatMap((g) => (proc.has(g) ? [[g, proc.get(g)!] as const] : []))),
    self: () => self,
    resolutionMs: 15_000,
  });
  return {
    collector,
    use: (cpuNs: number, memoryBytes: number) => proc.set(42, { cpuNs, memoryBytes }),
    useSelf: (cpuNs: number, memoryBytes: number) => (self = { cpuNs, memoryBytes }),
  };
}

describe('the usage collector', () => {
  it('measures a process pod: CPU as the rate between two samples in nanocores, memory in Ki', async () => {
    const clock = new FakeClock();
    const n = node(clock);
    await clock.advance(10_000);
    n.use(2e9, 12 * 1024 * 1024); // 2 s of CPU in 10 s since it started
    const first = await n.collector.collect();
    expect(first.pods.find((p) => p.name === 'proc')!.containers).toEqual([{ name: 'c', cpu: '200000000n', memory: '12288Ki' }]);
    expect(first.windowMs).toBe(15_000);

    await clock.advance(15_000);
    n.use(2e9 + 1.5e9, 12 * 1024 * 1024); // 1.5 s more in 15 s: 100m
    const second = await n.collector.collect();
    expect(second.pods.find((p) => p.name === 'proc')!.containers[0]!.cpu).toBe('100000000n');
    expect(second.windowMs).toBe(15_000);
    expect(second.time).toBe(clock.now());
  });

  it('gives a simulated pod what its annotation says, an agent none, and leaves out pods with nothing running', async () => {
    const clock = new FakeClock();
    const usage = await node(clock).collector.collect();
    expect(usage.pods.map((p) => p.name)).toEqual(['proc', 'sim', 'agent']);
    expect(usage.pods.find((p) => p.name === 'sim')).toEqual({ namespace: 'default', name: 'sim', uid: 'u-sim', containers: [{ name: 'c', cpu: '250000000n', memory: '65536Ki' }] });
    expect(usage.pods.find((p) => p.name === 'agent')!.containers[0]).toEqual({ name: 'c', cpu: '0n', memory: '0Ki' });
  });

  it("totals the node: its pods' sum plus the edge process's own use", async () => {
    const clock = new FakeClock();
    const n = node(clock);
    await n.collector.collect();
    await clock.advance(10_000);
    n.use(1e9, 10 * 1024 * 1024); // 100m, 10Mi
    n.useSelf(5e8, 50 * 1024 * 1024); // 50m, 50Mi
    const usage = await n.collector.collect();
    // 100m + 250m (sim) + 50m; 10Mi + 64Mi + 50Mi
    expect(usage.node).toEqual({ cpu: '400000000n', memory: `${(10 + 64 + 50) * 1024}Ki` });
  });

  it('counts every pod as simulated without a /proc reader (hollow fleets)', async () => {
    const clock = new FakeClock();
    const collector = new UsageCollector({
      runtime: { listContainers: async () => [container('p1', 'u-proc', 'process')], processOf: async () => ({ group: 42 }) },
      pods: () => [pod('proc', 'u-proc')], clock, resolutionMs: 15_000,
    });
    const usage = await collector.collect();
    expect(usage.pods[0]!.containers[0]).toEqual({ name: 'c', ...usageQuantities(SIM_USAGE_DEFAULT) });
    expect(usage.node).toEqual(usageQuantities(SIM_USAGE_DEFAULT));
  });
});

describe('kedge.io/sim-usage', () => {
  it.each([
    ['cpu=250m,memory=64Mi', { nanocores: 250_000_000, memoryBytes: 64 * 1024 * 1024 }],
    [' memory = 1Gi ', { nanocores: SIM_USAGE_DEFAULT.nanocores, memoryBytes: 1024 ** 3 }],
    ['cpu=2', { nanocores: 2e9, memoryBytes: SIM_USAGE_DEFAULT.memoryBytes }],
    ['cpu=-1,memory=lots,disk=5Gi', SIM_USAGE_DEFAULT],
    [undefined, SIM_USAGE_DEFAULT],
  ])('%s', (text, expected) => {
    expect(simUsageOf(text === undefined ? undefined : { 'kedge.io/sim-usage': text })).toEqual(expected);
  });

  it('writes quantities as metrics-server does, capping absurd ones', () => {
    expect(usageQuantities({ nanocores: 1234.6, memoryBytes: 2048 + 1000 })).toEqual({ cpu: '1234n', memory: '2Ki' });
    expect(usageQuantities(simUsageOf({ 'kedge.io/sim-usage': 'cpu=1e12' })).cpu).toBe(`${Number.MAX_SAFE_INTEGER}n`);
  });
});

describe('usage reports', () => {
  it('samples at once and every interval, sends only while connected, and never queues one for later', async () => {
    const clock = new FakeClock();
    let connected = false;
    let samples = 0;
    const sent: UpDraft[] = [];
    const stop = startUsageReports({
      collect: async () => ({ time: clock.now(), windowMs: 1000, node: { cpu: `${++samples}n`, memory: '0Ki' }, pods: [] }),
      isConnected: () => connected,
      resets$: new Subject(),
      send: async (draft) => (sent.push(draft), 'id'),
      clock, intervalMs: 1000, reportMs: 60_000, logger: silentLogger,
    });
    await clock.advance(2000);
    expect([samples, sent.length]).toEqual([3, 0]); // sampled offline too, sent nothing
    connected = true;
    await clock.advance(1000);
    expect(sent).toEqual([{ type: 'usage', body: { time: clock.now(), windowMs: 1000, node: { cpu: '4n', memory: '0Ki' }, pods: [] } }]);
    stop();
    await clock.advance(5000);
    expect(samples).toBe(4);
  });

  /** Reports of a node whose usage the test sets, at metrics-server's resolution (15 s) and the node status' report period (5 min). */
  function idleNode(clock: FakeClock, send: (draft: UpDraft) => Promise<string>) {
    let connected = true;
    const resets$ = new Subject<void>();
    let memory = '8192Ki';
    const stop = startUsageReports({
      collect: async () => ({ time: clock.now(), windowMs: 15_000, node: { cpu: '1000000n', memory }, pods: [] }),
      isConnected: () => connected,
      resets$,
      send,
      clock, intervalMs: 15_000, reportMs: 300_000, logger: silentLogger,
    });
    const connect = (up: boolean): void => {
      connected = up;
      if (up) resets$.next();
    };
    return { connect, synced: () => resets$.next(), stop, setMemory: (m: string) => (memory = m) };
  }

  it('sends a usage that does not change once, then every report period, not every sample', async () => {
    const clock = new FakeClock();
    const sent: number[] = [];
    const start = clock.now();
    const node = idleNode(clock, async () => (sent.push(clock.now() - start), 'id'));
    await clock.advance(10 * 60_000);
    node.stop();
    expect(sent).toEqual([0, 300_000, 600_000]); // 41 samples; every one went before
  });

  it('sends a changed usage at once, the first sample after a reconnect or an answer to a hello, and the next one after a failed send', async () => {
    const clock = new FakeClock();
    const sent: number[] = [];
    let fail = false;
    const start = clock.now();
    const node = idleNode(clock, async () => {
      if (fail) throw new Error('connection closed');
      sent.push(clock.now() - start);
      return 'id';
    });
    await clock.advance(30_000);
    node.setMemory('9000Ki');
    await clock.advance(15_000);
    expect(sent).toEqual([0, 45_000]);
    node.connect(false);
    await clock.advance(15_000);
    node.connect(true); // the cloud forgot the node's usage: the next sample goes, unchanged
    await clock.advance(15_000);
    node.synced(); // the cloud may have dropped that one, sent before it took the hello
    await clock.advance(15_000);
    fail = true;
    node.setMemory('9100Ki');
    await clock.advance(15_000);
    fail = false;
    await clock.advance(15_000);
    node.stop();
    expect(sent).toEqual([0, 45_000, 75_000, 90_000, 120_000]);
  });
});
