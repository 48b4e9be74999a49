import type { Clock } from '../../shared/clock.js';
import { act } from './act.js';
import type { ScenarioCluster } from './cluster.js';
import { describeStep, formatDuration } from './describe.js';
import { awaitExpectation } from './expect.js';
import { check, glimpse } from './observe.js';
import { RunRecorder } from './recorder.js';
import type { ScenarioReport } from './report.js';
import { summarize } from './timeline.js';
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

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Real milliseconds between timeline samples: 5 s of cluster time, at most 1 s and at least 0.2 s real. */
export const sampleIntervalMs = (scale: number): number => clamp(5_000 / scale, 200, 1_000);
/** Real milliseconds between two looks at an expectation. */
export const pollIntervalMs = (scale: number): number => clamp(2_000 / scale, 50, 500);

/** Samples the timeline in the background until stopped; stop() takes one last sample. */
function startSampler(d: RunDeps, rec: RunRecorder): { stop(): Promise<void> } {
  const stopped = new AbortController();
  const take = async (): Promise<void> => {
    const at = rec.at();
    rec.sample(summarize(d.cluster.nodes, await glimpse(d.cluster)), at);
  };
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      await take();
      await d.clock.sleep(sampleIntervalMs(d.timeScale), stopped.signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
      await take();
    },
  };
}

/**
 * Runs the steps in order against a running cluster, stopping at the first expectation that
 * does not hold, the first step that fails, or the abort signal; resolves with the report.
 */
export async function runSteps(scenario: Scenario, d: RunDeps): Promise<ScenarioReport> {
  const rec = new RunRecorder(scenario, d.source, d.timeScale, d.clock);
  const say = (line: string): void => d.onProgress?.(line);
  const total = scenario.steps.length;
  const sampler = startSampler(d, rec);
  let from = { step: 0, at: d.clock.now() };
  let current = 0;
  try {
    for (const [i, step] of scenario.steps.entries()) {
      current = i + 1;
      if (d.signal?.aborted) throw d.signal.reason;
      say(`[${formatDuration(rec.at() * 1000).padStart(7)}] step ${current}/${total}: ${describeStep(step)}`);
      rec.started(current);
      if (step.kind === 'expect') {
        if (!(await expectStep(step, current, from, d, rec, say))) break;
        continue;
      }
      if (step.kind !== 'wait') from = { step: current, at: d.clock.now() };
      const detail = await act(step, d);
      rec.ended(current);
      if (detail) say(`          ${detail}`);
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

async function expectStep(
  step: ExpectStep,
  n: number,
  from: { step: number; at: number },
  d: RunDeps,
  rec: RunRecorder,
  say: (line: string) => void,
): Promise<boolean> {
  const result = await awaitExpectation(step, () => check(d.cluster, step.expectation), { ...d, pollMs: pollIntervalMs(d.timeScale) });
  rec.expectation(n, result.ok, result.at, result.seen);
  rec.ended(n);
  if (step.measure !== undefined && result.heldAt !== undefined) {
    const m = rec.measured(step.measure, n, from.step, from.at, result.heldAt);
    say(`          measured "${m.name}": ${formatDuration(m.seconds * 1000)} (${m.realSeconds} s real)`);
  }
  say(result.ok ? `          ok: ${result.seen}` : `          FAILED: ${result.seen}`);
  return result.ok;
}
