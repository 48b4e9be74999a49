import { COLORS, PAD } from '../../bench/svg.js';
import type { ScenarioReport } from './report.js';
import { placeLabels, type MarkLabel } from './labels.js';
import type { NodeSample, Sample } from './timeline.js';

/** The report's timeline laid out in pixels, ready to draw (chart-svg.ts draws it). */
export interface ChartModel {
  width: number;
  /** Of the pods chart; the bands are drawn under it, as wide and on the same time axis. */
  height: number;
  /** Cluster seconds at the right end of the time axis. */
  xMax: number;
  yMax: number;
  lines: ChartLine[];
  /** Where action steps started, each with its label placed so that none overlap. */
  marks: ({ x: number; title: string } & MarkLabel)[];
  /** Where expectations were decided. */
  checks: { x: number; ok: boolean; title: string }[];
  bands: BandRow[];
}

export interface ChartLine {
  name: string;
  color: string;
  dashed: boolean;
  /** Polylines in pixels, broken where the view did not answer. */
  paths: [number, number][][];
}

export type BandState = 'Ready' | 'NotReady' | 'Unknown' | 'connected' | 'offline' | 'restarting' | 'rebooting' | 'no answer';

/** The states each strip shows, in the legend's order. */
export const CLOUD_STATES: readonly BandState[] = ['Ready', 'NotReady', 'Unknown', 'no answer'];
export const EDGE_STATES: readonly BandState[] = ['connected', 'offline', 'restarting', 'rebooting', 'no answer'];

export interface BandRow {
  label: string;
  node: string;
  view: 'cloud' | 'edge';
  segments: { x: number; w: number; state: BandState }[];
}

export const CHART_WIDTH = 760;
export const CHART_HEIGHT = 300;

export interface Span<S> {
  from: number;
  to: number;
  state: S;
}

/** Runs of equal state: each sample's state lasts until the next sample (the last one until `end`). Pure. */
export function spans<S>(samples: readonly Sample[], pick: (s: Sample) => S, end: number): Span<S>[] {
  const out: Span<S>[] = [];
  samples.forEach((sample, i) => {
    const state = pick(sample);
    const to = samples[i + 1]?.at ?? Math.max(end, sample.at);
    const last = out.at(-1);
    if (last && last.state === state) last.to = to;
    else out.push({ from: sample.at, to, state });
  });
  return out;
}

/** A count over time as a step line, in data units; a new polyline after each gap. Pure. */
export function stepPaths(samples: readonly Sample[], pick: (s: Sample) => number | undefined, end: number): [number, number][][] {
  const paths: [number, number][][] = [];
  let open: [number, number][] | undefined;
  for (const span of spans(samples, pick, end)) {
    if (span.state === undefined) {
      open = undefined;
      continue;
    }
    if (!open) paths.push((open = []));
    open.push([span.from, span.state], [span.to, span.state]);
  }
  return paths;
}

/** The end of an axis in four even ticks: the smallest of 1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8 × 10^k at or above v. Pure. */
export function axisMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10].map((m) => Math.round(m * p * 1e6) / 1e6).find((m) => m >= v)!;
}

const readyState = (ready: string | undefined): BandState => (ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : ready === 'Unknown' ? 'Unknown' : 'no answer');
const edgeState = (n: NodeSample | undefined): BandState => n?.edgeDown ?? (n?.connected === undefined ? 'no answer' : n.connected ? 'connected' : 'offline');

/** Lays out a report's timeline: pods Running per node in both views, node states, step marks and checks. Pure. */
export function planChart(r: ScenarioReport): ChartModel {
  const { samples, nodes } = r.timeline;
  const end = Math.max(0, ...samples.map((s) => s.at), ...r.steps.map((s) => s.end ?? s.start ?? 0));
  const xMax = axisMax(end);
  const most = Math.max(0, ...samples.flatMap((s) => Object.values(s.nodes).flatMap((n) => [n.cloudRunning ?? 0, n.edgeRunning ?? 0])));
  const yMax = Math.max(4, Math.ceil(most / 4) * 4);
  const plotW = CHART_WIDTH - PAD.l - PAD.r;
  const sx = (x: number): number => round(PAD.l + (plotW * x) / xMax);
  const sy = (y: number, nudge: number): number => round(PAD.t + (CHART_HEIGHT - PAD.t - PAD.b) * (1 - y / yMax) + nudge);
  const lines = nodes.flatMap((node, i) => {
    // Nodes with equal counts would hide one another: each is nudged a little.
    const nudge = (i - (nodes.length - 1) / 2) * 2;
    const color = COLORS[i % COLORS.length]!;
    const line = (view: 'cloud' | 'edge'): ChartLine => ({
      name: `${node}, as ${view === 'cloud' ? 'the cloud' : 'the edge'} sees it`,
      color,
      dashed: view === 'edge',
      paths: stepPaths(samples, (s) => (view === 'cloud' ? s.nodes[node]?.cloudRunning : s.nodes[node]?.edgeRunning), end).map((p) =>
        p.map(([x, y]): [number, number] => [sx(x), sy(y, nudge)]),
      ),
    });
    return [line('cloud'), line('edge')];
  });
  const band = (node: string, view: 'cloud' | 'edge'): BandRow => ({
    label: view === 'cloud' ? node : '(edge)',
    node,
    view,
    segments: spans(samples, (s) => (view === 'cloud' ? readyState(s.nodes[node]?.ready) : edgeState(s.nodes[node])), end).map((sp) => ({
      x: sx(sp.from),
      w: round(sx(sp.to) - sx(sp.from)),
      state: sp.state,
    })),
  });
  const actions = r.steps.filter((s) => s.start !== undefined && s.kind !== 'expect' && s.kind !== 'wait');
  const labels = placeLabels(
    actions.map((s) => ({ x: sx(s.start!), texts: [`${s.number} ${s.kind}`, String(s.number)] })),
    CHART_WIDTH - PAD.r,
  );
  const marks = actions.map((s, i) => ({ x: sx(s.start!), title: `step ${s.number} at ${s.start} s: ${s.text}`, ...labels[i]! }));
  const checks = r.expectations
    .filter((e) => e.outcome !== 'not run' && e.at !== undefined)
    .map((e) => ({ x: sx(e.at!), ok: e.outcome === 'held', title: `step ${e.step} ${e.outcome} at ${e.at} s: ${e.text}` }));
  return { width: CHART_WIDTH, height: CHART_HEIGHT, xMax, yMax, lines, marks, checks, bands: nodes.flatMap((n) => [band(n, 'cloud'), band(n, 'edge')]) };
}

const round = (n: number): number => Math.round(n * 10) / 10;
