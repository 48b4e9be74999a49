import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { verdictLine, type ScenarioReport } from '../../sim/scenario/report.js';
import { runSteps } from '../../sim/scenario/run.js';
import { sampleIntervalMs } from '../../sim/scenario/sampler.js';
import { FakeScenarioCluster } from './scenario-fake-cluster.js';

const SCALE = 10;
const late = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'late' }, spec: { containers: [{ name: 'c', image: 'i' }] } };

interface Run {
  report: ScenarioReport;
  cluster: FakeScenarioCluster;
  clock: FakeClock;
  progress: string[];
}

/** Runs the steps against a fake cluster, moving the fake clock until the run is over. */
async function run(steps: unknown[], o: { signal?: AbortSignal; abortAfterMs?: number } = {}): Promise<Run> {
  const clock = new FakeClock();
  const cluster = await new FakeScenarioCluster(clock, SCALE).setUp();
  const scenario = parseScenario({ name: 't', description: 'd', nodes: 2, steps }, 't.yaml');
  const progress: string[] = [];
  const abort = new AbortController();
  let done = false;
  const work = runSteps(scenario, { cluster, clock, timeScale: SCALE, source: 't.yaml', signal: abort.signal, onProgress: (l) => progress.push(l) }).finally(() => (done = true));
  for (let elapsed = 0; !done && elapsed < 600_000; elapsed += 50) {
    if (o.abortAfterMs !== undefined && elapsed >= o.abortAfterMs) abort.abort(new Error('Ctrl-C'));
    await clock.advance(50);
  }
  return { report: await work, cluster, clock, progress };
}

describe('running scenario steps', () => {
  it('acts, checks within and for deadlines, measures, and samples both views over time', async () => {
    const { report, cluster, progress } = await run([
      { expect: 'pods', selector: 'app=web', phase: 'Running', count: 2 },
      { cut: 'edge-1' },
      { expect: 'node', node: 'edge-1', ready: 'True', for: '20s' },
      { expect: 'node', node: 'edge-1', ready: 'Unknown', within: '1m', measure: 'Unknown after the cut' },
      { expect: 'connection', node: 'edge-1', connected: false },
      { expect: 'pods', view: 'edge', node: 'edge-1', phase: 'Running', count: 1 },
      { wait: '1m' },
      { heal: 'edge-1' },
      { expect: 'node', node: 'edge-1', ready: 'True', within: '10s' },
    ]);
    expect(report.passed).toBe(true);
    expect(report.error).toBeUndefined();
    expect(cluster.actions).toEqual(['cut edge-1', 'heal edge-1']);
    expect(report.expectations.map((e) => [e.step, e.outcome])).toEqual([[1, 'held'], [3, 'held'], [4, 'held'], [5, 'held'], [6, 'held'], [9, 'held']]);
    expect(report.expectations[1]).toMatchObject({ at: 20, seen: 'Ready=True' });
    const [measured] = report.measurements;
    expect(measured).toMatchObject({ name: 'Unknown after the cut', step: 4, fromStep: 2 });
    expect(measured!.seconds).toBeGreaterThanOrEqual(40);
    expect(measured!.seconds).toBeLessThanOrEqual(42.5);
    expect(measured!.realSeconds).toBeCloseTo(measured!.seconds / SCALE, 1);
    const wait = report.steps[6]!;
    expect(wait.end! - wait.start!).toBeCloseTo(60, 0);

    const { samples } = report.timeline;
    expect(report.timeline.nodes).toEqual(['edge-1', 'edge-2']);
    const gaps = samples.slice(1).map((s, i) => s.at - samples[i]!.at);
    expect(Math.max(...gaps.slice(0, -1))).toBeLessThanOrEqual((sampleIntervalMs(SCALE) / 1000) * SCALE + 0.5);
    const edge1 = samples.map((s) => `${s.nodes['edge-1']!.ready}/${s.nodes['edge-1']!.connected}`);
    expect(edge1[0]).toBe('True/true');
    expect(edge1).toContain('True/false'); // cut: the edge knows, the cloud does not yet
    expect(edge1).toContain('Unknown/false');
    expect(edge1.at(-1)).toBe('True/true');
    expect(samples.every((s) => s.nodes['edge-1']!.edgeRunning === 1 && s.nodes['edge-2']!.cloudRunning === 1)).toBe(true);

    expect(progress[0]).toBe('[    0ms] step 1/9: expect 2 pods app=web Running (as the cloud sees it)');
    expect(progress).toContain('          measured "Unknown after the cut": ' + `${measured!.seconds}s (${measured!.realSeconds} s real)`);
  });

  it('measures the bytes on a link from the latest action step, with bytes: <node>', async () => {
    const { report, progress } = await run([
      { heal: 'edge-1' },
      { heal: 'edge-1' },
      { expect: 'node', node: 'edge-1', ready: 'True', within: '10s', measure: 'after the second heal', bytes: 'edge-1' },
      { expect: 'node', node: 'edge-2', ready: 'True', measure: 'no bytes asked' },
    ]);
    expect(report.passed).toBe(true);
    expect(report.measurements[0]).toMatchObject({ name: 'after the second heal', fromStep: 2, bytes: { node: 'edge-1', up: 300, down: 40_000 } });
    expect(report.measurements[1]!.bytes).toBeUndefined();
    expect(progress.find((l) => l.includes('measured "after the second heal"'))).toMatch(/, edge-1's link: 40 KB down, 300 B up$/);
  });

  it('samples as each step ends and at each look at an expectation, so a state shorter than the period shows', async () => {
    const { report } = await run([
      { wait: '1s' },
      { cut: 'edge-1' },
      { wait: '1s' },
      { heal: 'edge-1' },
      { cut: 'edge-2' },
      { expect: 'node', node: 'edge-2', ready: 'Unknown', within: '1m' },
      { heal: 'edge-2' },
    ]);
    expect(report.passed).toBe(true);
    const { samples } = report.timeline;
    const at = (t: number) => samples.filter((s) => s.at === t);
    for (const step of report.steps) expect(at(step.end!).length, `a sample as step ${step.number} ends`).toBeGreaterThan(0);
    // Cut for 1 s, between two periodic samples: seen all the same.
    expect(at(report.steps[1]!.end!).some((s) => s.nodes['edge-1']!.connected === false)).toBe(true);
    // Seen Unknown by the sample of the look that saw it hold, off the period's beat.
    const held = report.expectations[0]!.at!;
    expect(held % 5).not.toBe(0);
    expect(at(held).some((s) => s.nodes['edge-2']!.ready === 'Unknown')).toBe(true);
    expect(samples.map((s) => s.at)).toEqual([...samples.map((s) => s.at)].sort((a, b) => a - b));
  });

  it('shows a rebooted node with nothing running while it reboots, and a crashed edge as restarting', async () => {
    const { report } = await run([{ wait: '1s' }, { reboot: ['edge-1'] }, { crash: 'edge-2' }, { expect: 'pods', view: 'edge', phase: 'Running', count: 2 }]);
    expect(report.passed).toBe(true);
    const [, reboot, crash] = report.steps;
    const { samples } = report.timeline;
    const during = (step: typeof reboot, node: string) => samples.filter((s) => s.at > step!.start! && s.at < step!.end!).map((s) => s.nodes[node]);
    // The sample as the reboot begins has it down already, however short the reboot.
    expect(samples.some((s) => s.at === reboot!.start && s.nodes['edge-1']!.edgeDown === 'rebooting')).toBe(true);
    expect(during(reboot, 'edge-1').length).toBeGreaterThan(1);
    expect(during(reboot, 'edge-1').every((n) => n!.edgeDown === 'rebooting' && n!.edgeRunning === 0 && n!.connected === undefined)).toBe(true);
    expect(during(reboot, 'edge-1')[0]!.cloudRunning).toBe(1); // the cloud has not noticed
    expect(during(reboot, 'edge-2').every((n) => n!.edgeDown === undefined && n!.edgeRunning === 1)).toBe(true);
    expect(during(crash, 'edge-2').every((n) => n!.edgeDown === 'restarting' && n!.edgeRunning === undefined)).toBe(true);
    const after = samples.filter((s) => s.at === crash!.end!);
    expect(after.every((s) => s.nodes['edge-1']!.edgeRunning === 1 && s.nodes['edge-2']!.edgeRunning === 1 && s.nodes['edge-2']!.connected === true)).toBe(true);
  });

  it('stops at the first expectation that does not hold; the rest are not run', async () => {
    const { report, cluster } = await run([
      { cut: 'edge-1' },
      { expect: 'node', node: 'edge-1', ready: 'Unknown', within: '30s' },
      { heal: 'edge-1' },
      { expect: 'node', node: 'edge-1', ready: 'True' },
    ]);
    expect(report.passed).toBe(false);
    expect(cluster.actions).toEqual(['cut edge-1']);
    expect(report.expectations).toMatchObject([
      { step: 2, outcome: 'failed', seen: 'not within 30s: Ready=True' },
      { step: 4, outcome: 'not run' },
    ]);
    expect(report.expectations[0]!.at).toBeGreaterThanOrEqual(30);
    expect(report.steps[2]!.start).toBeUndefined();
    expect(verdictLine(report)).toBe('FAILED (0 of 2 expectations held): step 2: expect edge-1 Ready=Unknown (as the cloud sees it); seen: not within 30s: Ready=True');
  });

  it('fails an expectation that stops holding during its `for`', async () => {
    const { report } = await run([{ cut: 'edge-1' }, { expect: 'node', node: 'edge-1', ready: 'True', for: '2m' }]);
    expect(report.expectations[0]).toMatchObject({ outcome: 'failed' });
    expect(report.expectations[0]!.seen).toMatch(/^held, then stopped holding after 4\d(\.\d)?s: Ready=Unknown$/);
  });

  it('sees a refusal while the store is down, and no cloud view in the timeline then', async () => {
    const { report } = await run([
      { stop: 'store' },
      { expect: 'rejected', create: late, status: 503, within: '5s' },
      { expect: 'pods', view: 'edge', phase: 'Running', count: 2, for: '20s' },
      { expect: 'pods', count: 2 },
    ]);
    expect(report.expectations).toMatchObject([
      { step: 2, outcome: 'held', seen: 'HTTP 503: the store is down' },
      { step: 3, outcome: 'held' },
      { step: 4, outcome: 'failed', seen: 'no answer: HTTP 503: the store is down' },
    ]);
    const during = report.timeline.samples.filter((s) => s.at > 1);
    expect(during.length).toBeGreaterThan(2);
    expect(during.every((s) => s.nodes['edge-1']!.ready === undefined && s.nodes['edge-1']!.cloudRunning === undefined && s.nodes['edge-1']!.edgeRunning === 1)).toBe(true);
  });

  it('reboots the named nodes together and reports a step that fails, with its number', async () => {
    const { report, cluster } = await run([{ reboot: ['edge-1', 'edge-2'] }, { stop: 'scheduler' }, { expect: 'pods', count: 2 }]);
    expect(cluster.actions).toEqual(['reboot edge-1', 'reboot edge-2']);
    const reboot = report.steps[0]!;
    expect(reboot.end! - reboot.start!).toBeCloseTo(10, 0); // 1 s real for both, at scale 10
    expect(report).toMatchObject({ passed: false, error: 'step 2: no component named "scheduler"' });
    expect(report.steps[1]).toMatchObject({ error: 'no component named "scheduler"' });
    expect(report.expectations[0]!.outcome).toBe('not run');
    expect(verdictLine(report)).toBe('FAILED (0 of 1 expectations held): step 2: no component named "scheduler"');
  });

  it("stops an edge's kube-proxy through the edge, and judges a Service through each node's address by who answers", async () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, nodePort: 30180 }] } };
    const added = { ...late, metadata: { name: 'web-new', labels: { app: 'web' } }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } };
    const through = (node: string, judged: object) => ({ expect: 'service', service: 'web', node, requests: 6, ...judged });
    const { report, cluster } = await run([
      { apply: service },
      { stop: 'kube-proxy', node: 'edge-1' },
      { apply: added },
      through('edge-2', { includes: 'web-new' }),
      through('edge-1', { answers: true, servedBy: 2, excludes: 'web-new', for: '10s' }),
      { start: 'kube-proxy', node: 'edge-1' },
      through('edge-1', { servedBy: 3, includes: 'app=web', within: '10s' }),
      { stop: 'kedge-cni', node: 'edge-1' },
    ]);
    expect(cluster.actions).toEqual(['stop kube-proxy on edge-1', 'start kube-proxy on edge-1']);
    expect(report.expectations).toMatchObject([
      { step: 4, outcome: 'held', seen: 'http://127.0.1.2:30180/: 6 of 6 answered ("web-edge-1" ×2, "web-edge-2" ×2, "web-new" ×2)' },
      { step: 5, outcome: 'held', seen: 'http://127.0.1.1:30180/: 6 of 6 answered ("web-edge-1" ×3, "web-edge-2" ×3)' },
      { step: 7, outcome: 'held' },
    ]);
    expect(report).toMatchObject({ passed: false, error: 'step 8: no component "kedge-cni" on this edge' });
  });

  it('shapes and flaps links through the cluster, reporting each step in words', async () => {
    const { report, cluster } = await run([
      { shape: { node: 'edge-1', profile: 'satellite' } },
      { flap: { node: 'edge-2', down: '5s', every: '30s' } },
      { shape: { node: 'edge-1', clear: true } },
    ]);
    expect(report.passed).toBe(true);
    expect(cluster.actions).toEqual(['shape edge-1', 'flap edge-2', 'shape edge-1']);
    expect(cluster.linkSteps.map((s) => s.request)).toEqual([{ profile: expect.objectContaining({ name: 'satellite' }) }, { schedule: { downMs: 5000, everyMs: 30_000 } }, { clear: true }]);
  });

  it('ends a run when interrupted, stopping its own timers', async () => {
    const { report, clock } = await run([{ wait: '10m' }, { cut: 'edge-1' }], { abortAfterMs: 2_000 });
    expect(report).toMatchObject({ passed: false, error: 'step 1: interrupted' });
    expect(report.steps[0]!.end).toBeCloseTo(20, 0);
    expect(report.steps[1]!.start).toBeUndefined();
    expect(clock.pending).toBe(0);
  });
});
