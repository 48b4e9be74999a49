import type { Clock } from '../../shared/clock.js';
import { act, type ActionStep } from './act.js';
import type { ScenarioCluster } from './cluster.js';
import { describeStep, formatDuration } from './describe.js';
import { awaitExpectation } from './expect.js';
import type { Verdict } from './judge.js';
import { check, type Probes } from './observe.js';
import { WriteProbe } from './quorum-probes.js';
import { RunRecorder } from './recorder.js';
import { describeBytes, type LinkBytes, type ScenarioReport } from './report.js';
import { clamp, Sampler } from './sampler.js';
import type { ExpectStep, Scenario } from './types.js';

export interface RunDeps {
  cluster: ScenarioCluster;
  clock: Clock;
  timeScale: number;
  /** Where the scenario came from (a file path or a built-in's name), for the report. */
  source: string;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
}

/** Real milliseconds between two looks at an expectation. */
export const pollIntervalMs = (scale: number): number => clamp(2_000 / scale, 50, 500);

/** Where a measurement counts from: the latest action step, when it began, and its links' byte counts then. */
interface MeasureFrom {
  step: number;
  at: number;
  links: Map<string, { up: number; down: number }>;
}

/** The nodes whose link bytes some `bytes:` of the scenario measures. */
const measuredLinks = (scenario: Scenario): string[] => [...new Set(scenario.steps.flatMap((s) => (s.kind === 'expect' && s.bytes ? [s.bytes] : [])))];

function measureFrom(step: number, d: RunDeps, links: readonly string[]): MeasureFrom {
  return { step, at: d.clock.now(), links: new Map(links.map((node) => [node, d.cluster.linkBytes(node)])) };
}

/** Does an action step; one that takes edges down is sampled with them down as it begins. */
function actSampled(step: ActionStep, d: RunDeps, sampler: Sampler): Promise<string | undefined> {
  if (step.kind !== 'reboot' && step.kind !== 'crash' && step.kind !== 'restart') return act(step, d);
  return sampler.whileDown(step.nodes, step.kind === 'reboot' ? 'rebooting' : 'restarting', () => act(step, d));
}

/**
 * Runs the steps in order against a running cluster, stopping at the first expectation that
 * does not hold, the first step that fails, or the abort signal; resolves with the report.
 */
export async function runSteps(scenario: Scenario, d: RunDeps): Promise<ScenarioReport> {
  const rec = new RunRecorder(scenario, d.source, d.timeScale, d.clock);
  const say = (line: string): void => d.onProgress?.(line);
  const total = scenario.steps.length;
  const sampler = new Sampler(d, rec);
  const probes: Probes = { writes: new WriteProbe(d.clock) };
  sampler.start();
  const links = measuredLinks(scenario);
  let from = measureFrom(0, d, links);
  let current = 0;
  try {
    for (const [i, step] of scenario.steps.entries()) {
      current = i + 1;
      if (d.signal?.aborted) throw d.signal.reason;
      say(`[${formatDuration(rec.at() * 1000).padStart(7)}] step ${current}/${total}: ${describeStep(step)}`);
      rec.started(current);
      let held = true;
      if (step.kind === 'expect') held = await expectStep(step, current, from, { ...d, rec, sampler, probes }, say);
      else {
        if (step.kind !== 'wait') from = measureFrom(current, d, links);
        const detail = await actSampled(step, d, sampler);
        rec.ended(current);
        if (detail) say(`          ${detail}`);
      }
      // After each step, and so before the next: what it did shows at once.
      await sampler.take();
      if (!held) break;
    }
  } catch (err) {
    const message = d.signal?.aborted ? 'interrupted' : (err as Error).message;
    rec.ended(current, message);
    rec.fail(`step ${current}: ${message}`);
    say(`          FAILED: ${message}`);
  } finally {
    await sampler.stop();
  }
  return rec.report();
}

function bytesSince(node: string, from: MeasureFrom, cluster: ScenarioCluster): LinkBytes {
  const now = cluster.linkBytes(node);
  const then = from.links.get(node) ?? { up: 0, down: 0 };
  return { node, up: now.up - then.up, down: now.down - then.down };
}

async function expectStep(
  step: ExpectStep,
  n: number,
  from: MeasureFrom,
  d: RunDeps & { rec: RunRecorder; sampler: Sampler; probes: Probes },
  say: (line: string) => void,
): Promise<boolean> {
  const { rec } = d;
  // Each look is sampled: the chart shows what the expectation saw, when it saw it.
  const look = async (): Promise<Verdict> => (await Promise.all([check(d.cluster, step.expectation, d.probes), d.sampler.take()]))[0];
  const result = await awaitExpectation(step, look, { ...d, pollMs: pollIntervalMs(d.timeScale) });
  rec.expectation(n, result.ok, result.at, result.seen);
  rec.ended(n);
  if (step.measure !== undefined && result.heldAt !== undefined) {
    const m = rec.measured(step.measure, n, from.step, from.at, result.heldAt, step.bytes === undefined ? undefined : bytesSince(step.bytes, from, d.cluster));
    const bytes = m.bytes ? `, ${describeBytes(m.bytes)}` : '';
    say(`          measured "${m.name}": ${formatDuration(m.seconds * 1000)} (${m.realSeconds} s real)${bytes}`);
  }
  say(result.ok ? `          ok: ${result.seen}` : `          FAILED: ${result.seen}`);
  return result.ok;
}
