import type { Sample } from './timeline.js';
import type { StepKind } from './types.js';

/**
 * What `report.json` holds. Every time is in seconds of cluster time since the run started
 * (real seconds × the time scale), so a report reads the same at any scale.
 */
export interface ScenarioReport {
  scenario: { name: string; description: string; nodes: number; source: string };
  timeScale: number;
  startedAt: string;
  finishedAt: string;
  /** Real seconds from the first step to the end (the demo's start not included). */
  realSeconds: number;
  passed: boolean;
  /** Why the run stopped early, besides an expectation that did not hold (a step that failed, Ctrl-C). */
  error?: string;
  steps: StepRecord[];
  expectations: ExpectationRecord[];
  measurements: Measurement[];
  timeline: { nodes: string[]; samples: Sample[] };
}

export interface StepRecord {
  /** 1-based, as in error messages. */
  number: number;
  kind: StepKind;
  text: string;
  /** Unset for steps never reached. */
  start?: number;
  end?: number;
  error?: string;
}

export type Outcome = 'held' | 'failed' | 'not run';

export interface ExpectationRecord {
  step: number;
  text: string;
  outcome: Outcome;
  /** When it was decided: when it held (with `for`, to the end of that time), or when it was given up. */
  at?: number;
  seen?: string;
}

export interface Measurement {
  name: string;
  /** The expect step that measured it, and the action step it counts from (0: the start of the run). */
  step: number;
  fromStep: number;
  seconds: number;
  realSeconds: number;
  /** With the step's `bytes: <node>`: what crossed that node's link meanwhile, up (edge → cloud) and down. */
  bytes?: LinkBytes;
}

export interface LinkBytes {
  node: string;
  up: number;
  down: number;
}

/** `edge-1's link: 412 KB down, 38 KB up` (1 KB = 1000 bytes). Pure. */
export function describeBytes(b: LinkBytes): string {
  const kb = (n: number): string => (n >= 10_000 ? `${Math.round(n / 1000)} KB` : `${n} B`);
  return `${b.node}'s link: ${kb(b.down)} down, ${kb(b.up)} up`;
}

/** One line for the end of a run: the verdict and the first thing that went wrong. Pure. */
export function verdictLine(r: ScenarioReport): string {
  const held = r.expectations.filter((e) => e.outcome === 'held').length;
  if (r.passed) return `PASSED: all ${held} expectations held`;
  const failed = r.expectations.find((e) => e.outcome === 'failed');
  const why = failed ? `step ${failed.step}: expect ${failed.text}; seen: ${failed.seen}` : (r.error ?? 'unknown');
  return `FAILED (${held} of ${r.expectations.length} expectations held): ${why}`;
}
