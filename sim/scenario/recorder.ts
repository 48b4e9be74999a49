import type { Clock } from '../../shared/clock.js';
import { describeExpectation, describeStep } from './describe.js';
import type { ExpectationRecord, LinkBytes, Measurement, ScenarioReport, StepRecord } from './report.js';
import type { NodeSample, Sample } from './timeline.js';
import { nodeNames } from './parse.js';
import type { Scenario } from './types.js';

const tenths = (n: number): number => Math.round(n * 10) / 10;

/** Collects what happens during a run, timed in cluster seconds, into a ScenarioReport. */
export class RunRecorder {
  private readonly t0: number;
  private readonly startedAt: string;
  private readonly steps: StepRecord[];
  private readonly expectations = new Map<number, ExpectationRecord>();
  private readonly measurements: Measurement[] = [];
  private readonly samples: Sample[] = [];
  private error: string | undefined;

  constructor(
    private readonly scenario: Scenario,
    private readonly source: string,
    private readonly timeScale: number,
    private readonly clock: Clock,
  ) {
    this.t0 = clock.now();
    this.startedAt = new Date(this.t0).toISOString();
    this.steps = scenario.steps.map((s, i) => ({ number: i + 1, kind: s.kind, text: describeStep(s) }));
    scenario.steps.forEach((s, i) => {
      if (s.kind === 'expect') this.expectations.set(i + 1, { step: i + 1, text: describeExpectation(s.expectation), outcome: 'not run' });
    });
  }

  /** Cluster seconds since the start, at a clock time (default: now). */
  at(clockMs = this.clock.now()): number {
    return tenths(((clockMs - this.t0) / 1000) * this.timeScale);
  }

  started(step: number): void {
    this.steps[step - 1]!.start = this.at();
  }

  ended(step: number, error?: string): void {
    const record = this.steps[step - 1]!;
    record.end = this.at();
    if (error !== undefined) record.error = error;
  }

  expectation(step: number, ok: boolean, atMs: number, seen: string): void {
    Object.assign(this.expectations.get(step)!, { outcome: ok ? 'held' : 'failed', at: this.at(atMs), seen });
  }

  measured(name: string, step: number, fromStep: number, fromMs: number, toMs: number, bytes?: LinkBytes): Measurement {
    const m: Measurement = { name, step, fromStep, seconds: tenths(((toMs - fromMs) / 1000) * this.timeScale), realSeconds: Math.round(toMs - fromMs) / 1000, ...(bytes && { bytes }) };
    this.measurements.push(m);
    return m;
  }

  /** `at`: when the look began (cluster seconds). */
  sample(nodes: Record<string, NodeSample>, at = this.at()): void {
    this.samples.push({ at, nodes });
  }

  fail(error: string): void {
    this.error ??= error;
  }

  report(): ScenarioReport {
    const expectations = [...this.expectations.values()];
    const now = this.clock.now();
    const report: ScenarioReport = {
      scenario: { name: this.scenario.name, description: this.scenario.description, nodes: this.scenario.nodes, source: this.source },
      timeScale: this.timeScale,
      startedAt: this.startedAt,
      finishedAt: new Date(now).toISOString(),
      realSeconds: Math.round(now - this.t0) / 1000,
      passed: this.error === undefined && expectations.every((e) => e.outcome === 'held'),
      steps: this.steps,
      expectations,
      measurements: this.measurements,
      // Looks overlap (a period's, a step's): in the order they began.
      timeline: { nodes: nodeNames(this.scenario.nodes), samples: [...this.samples].sort((a, b) => a.at - b.at) },
    };
    if (this.error !== undefined) report.error = this.error;
    return report;
  }
}
