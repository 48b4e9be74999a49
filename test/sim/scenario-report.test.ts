import { describe, expect, it } from 'vitest';
import { PAD } from '../../bench/svg.js';
import { axisMax, CHART_WIDTH, CLOUD_STATES, EDGE_STATES, planChart, spans, stepPaths } from '../../sim/scenario/chart.js';
import { LABEL_CHAR_PX, placeLabels } from '../../sim/scenario/labels.js';
import { BAND_COLORS } from '../../sim/scenario/chart-svg.js';
import { reportHtml } from '../../sim/scenario/html.js';
import type { ScenarioReport } from '../../sim/scenario/report.js';
import type { NodeSample, Sample } from '../../sim/scenario/timeline.js';

/** Degrees between the hues of two #rrggbb colours (0 to 180). */
function hueDistance(a: string, b: string): number {
  const hue = (hex: string): number => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
    const max = Math.max(r, g, bl);
    const d = max - Math.min(r, g, bl);
    const h = max === r ? ((g - bl) / d) % 6 : max === g ? (bl - r) / d + 2 : (r - g) / d + 4;
    return (h * 60 + 360) % 360;
  };
  const diff = Math.abs(hue(a) - hue(b));
  return Math.min(diff, 360 - diff);
}

const sample = (at: number, e1: NodeSample, e2: NodeSample = { ready: 'True', cloudRunning: 1, edgeRunning: 1, connected: true }): Sample => ({ at, nodes: { 'edge-1': e1, 'edge-2': e2 } });

/** edge-1 is cut at 10 s: the edge knows at once, the cloud says Unknown at 50 s and stops answering for a moment at 70 s. */
const samples: Sample[] = [
  sample(0, { ready: 'True', cloudRunning: 2, edgeRunning: 2, connected: true }),
  sample(10, { ready: 'True', cloudRunning: 2, edgeRunning: 2, connected: false }),
  sample(50, { ready: 'Unknown', cloudRunning: 2, edgeRunning: 2, connected: false }),
  sample(70, { edgeRunning: 2, connected: false }),
  sample(80, { ready: 'Unknown', cloudRunning: 0, edgeRunning: 2, connected: false }),
];

function report(over: Partial<ScenarioReport> = {}): ScenarioReport {
  return {
    scenario: { name: 'cut-off', description: 'A node cut off: <the cloud> & the edge disagree.', nodes: 2, source: 'scenarios/cut-off.yaml' },
    timeScale: 10,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:09.000Z',
    realSeconds: 9,
    passed: false,
    steps: [
      { number: 1, kind: 'cut', text: 'cut edge-1', start: 10, end: 10 },
      { number: 2, kind: 'expect', text: 'expect edge-1 Ready=Unknown within 1m', start: 10, end: 50 },
      { number: 3, kind: 'wait', text: 'wait 30s', start: 50, end: 80 },
      { number: 4, kind: 'heal', text: 'heal edge-1', start: 80, end: 80 },
      { number: 5, kind: 'expect', text: 'expect 2 pods on edge-1', start: 80, end: 90 },
      { number: 6, kind: 'heal', text: 'heal edge-2' },
    ],
    expectations: [
      { step: 2, text: 'edge-1 Ready=Unknown', outcome: 'held', at: 50, seen: 'Ready=Unknown' },
      { step: 5, text: '2 pods on edge-1', outcome: 'failed', at: 90, seen: 'not within 10s: 1 matching' },
    ],
    measurements: [
      { name: 'Unknown after the cut', step: 2, fromStep: 1, seconds: 40, realSeconds: 4 },
      { name: 'pods over the link', step: 2, fromStep: 1, seconds: 12, realSeconds: 1.2, bytes: { node: 'edge-1', up: 812, down: 187_400 } },
    ],
    timeline: { nodes: ['edge-1', 'edge-2'], samples },
    ...over,
  };
}

describe('the chart model of a report', () => {
  it('merges equal states into spans lasting until the next sample', () => {
    expect(spans(samples, (s) => s.nodes['edge-1']!.ready, 100)).toEqual([
      { from: 0, to: 50, state: 'True' },
      { from: 50, to: 70, state: 'Unknown' },
      { from: 70, to: 80, state: undefined },
      { from: 80, to: 100, state: 'Unknown' },
    ]);
    expect(spans([], (s) => s.at, 10)).toEqual([]);
  });

  it('draws counts as step lines, broken where the view did not answer', () => {
    expect(stepPaths(samples, (s) => s.nodes['edge-1']!.cloudRunning, 90)).toEqual([
      [[0, 2], [70, 2]],
      [[80, 0], [90, 0]],
    ]);
    expect(stepPaths(samples, (s) => s.nodes['edge-1']!.edgeRunning, 90)).toEqual([[[0, 2], [90, 2]]]);
  });

  it('ends axes at round values in four even ticks', () => {
    expect([0, 0.7, 1, 45, 90, 101, 540, 1000, 2500].map(axisMax)).toEqual([1, 0.8, 1, 50, 100, 120, 600, 1000, 3000]);
  });

  it('places the labels of close marks in rows where none overlaps: shortened, or left out, when there is no room', () => {
    const labels = (xs: number[]): string[][] => xs.map((x, i) => [`${i + 1} reboot`, String(i + 1)]);
    const at = (xs: number[]) => placeLabels(xs.map((x, i) => ({ x, texts: labels(xs)[i]! })), 744);
    const apart = at([56, 58, 60, 140, 680, 702]);
    expect(apart.map((p) => p.label)).toEqual(['1 reboot', '2 reboot', '3 reboot', '4 reboot', '5 reboot', '6 reboot']);
    expect(apart.map((p) => p.row)).toEqual([0, 1, 2, 0, 0, 1]);
    expect(apart.map((p) => p.anchor)).toEqual(['start', 'start', 'start', 'start', 'start', 'end']); // '6 reboot' would pass the right end
    // Too close for every full label: all show their number.
    const close = at([56, 64, 72, 80, 88, 96]);
    expect(close.map((p) => p.label)).toEqual(['1', '2', '3', '4', '5', '6']);
    // Too close even for that: the ones with no room are left out (their tooltips stay).
    const crowded = at([56, 57, 58, 59, 60]);
    expect(crowded.map((p) => p.label)).toEqual(['1', '2', '3', '', '']);
  });

  it('never draws two step labels over one another, however many steps start close together', () => {
    const steps = Array.from({ length: 30 }, (_, i) => ({ number: i + 1, kind: 'cut' as const, text: `cut edge-${i}`, start: i * 0.3, end: i * 0.3 }));
    const m = planChart(report({ steps }));
    const drawn = m.marks.filter((k) => k.label !== '');
    expect(drawn.length).toBeGreaterThan(5);
    const box = (k: (typeof drawn)[number]): [number, number] => {
      const w = k.label.length * LABEL_CHAR_PX;
      return k.anchor === 'end' ? [k.x - 2 - w, k.x - 2] : [k.x + 2, k.x + 2 + w];
    };
    for (const [i, a] of drawn.entries()) {
      for (const b of drawn.slice(i + 1)) if (a.row === b.row) expect(box(a)[1] <= box(b)[0] || box(b)[1] <= box(a)[0], `${a.label} and ${b.label}`).toBe(true);
    }
    expect(m.marks.every((k) => k.title.startsWith(`step `))).toBe(true);
  });

  it('lays out both views of every node, the node states, the action marks and the checks', () => {
    const m = planChart(report());
    expect(m.xMax).toBe(100);
    expect(m.yMax).toBe(4);
    const x = (s: number): number => PAD.l + ((CHART_WIDTH - PAD.l - PAD.r) * s) / 100;
    expect(m.lines.map((l) => [l.name, l.dashed])).toEqual([
      ['edge-1, as the cloud sees it', false],
      ['edge-1, as the edge sees it', true],
      ['edge-2, as the cloud sees it', false],
      ['edge-2, as the edge sees it', true],
    ]);
    expect(m.lines[0]!.paths).toHaveLength(2);
    expect(m.lines[0]!.color).toBe(m.lines[1]!.color);
    expect(m.lines[0]!.color).not.toBe(m.lines[2]!.color);
    expect(m.lines[0]!.paths[0]![0]![0]).toBeCloseTo(x(0), 0);
    expect(m.bands.map((b) => [b.label, b.segments.map((s) => s.state)])).toEqual([
      ['edge-1', ['Ready', 'Unknown', 'no answer', 'Unknown']],
      ['(edge)', ['connected', 'offline']],
      ['edge-2', ['Ready']],
      ['(edge)', ['connected']],
    ]);
    const unknown = m.bands[0]!.segments[1]!;
    expect(unknown.x).toBeCloseTo(x(50), 0);
    expect(unknown.w).toBeCloseTo(x(70) - x(50), 0);
    expect(m.marks.map((k) => [k.label, k.title])).toEqual([
      ['1 cut', 'step 1 at 10 s: cut edge-1'],
      ['4 heal', 'step 4 at 80 s: heal edge-1'],
    ]);
    expect(m.checks.map((c) => [c.ok, c.title])).toEqual([
      [true, 'step 2 held at 50 s: edge-1 Ready=Unknown'],
      [false, 'step 5 failed at 90 s: 2 pods on edge-1'],
    ]);
  });

  it("shows in the edge's strip a step that has the edge down: rebooting, its count at 0, or restarting, its count missing", () => {
    const down: Sample[] = [
      sample(0, { ready: 'True', cloudRunning: 2, edgeRunning: 2, connected: true }),
      sample(10, { ready: 'True', cloudRunning: 2, edgeRunning: 0, edgeDown: 'rebooting' }),
      sample(20, { ready: 'True', cloudRunning: 2, edgeRunning: 2, connected: true }),
      sample(30, { ready: 'True', cloudRunning: 2, edgeDown: 'restarting' }),
      sample(40, { ready: 'True', cloudRunning: 2, edgeRunning: 2, connected: true }),
    ];
    const m = planChart(report({ timeline: { nodes: ['edge-1', 'edge-2'], samples: down } }));
    expect(m.bands[1]!.segments.map((s) => s.state)).toEqual(['connected', 'rebooting', 'connected', 'restarting', 'connected']);
    expect(m.lines[1]!.paths).toHaveLength(2);
  });

  it('gives every state of a strip its own colour, Unknown and offline far apart in hue', () => {
    for (const states of [CLOUD_STATES, EDGE_STATES]) expect(new Set(states.map((s) => BAND_COLORS[s])).size).toBe(states.length);
    expect(hueDistance(BAND_COLORS.Unknown, BAND_COLORS.offline)).toBeGreaterThanOrEqual(90);
    expect(hueDistance(BAND_COLORS.Unknown, BAND_COLORS.NotReady)).toBeGreaterThanOrEqual(30);
  });

  it('copes with a run that never got to sample', () => {
    const m = planChart(report({ timeline: { nodes: ['edge-1'], samples: [] }, steps: [], expectations: [] }));
    expect(m).toMatchObject({ xMax: 1, yMax: 4, marks: [], checks: [] });
    expect(m.lines.every((l) => l.paths.length === 0)).toBe(true);
  });
});

describe('the HTML report', () => {
  const html = reportHtml(report());

  it('is one self-contained page: no script, no external asset, no URL at all', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/https?:/);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).toContain('<style>');
  });

  it('shows the verdict, the expectations, the measurements and the steps', () => {
    expect(html).toContain('<h1>cut-off: FAILED</h1>');
    expect(html).toContain('FAILED (1 of 2 expectations held): step 5: expect 2 pods on edge-1; seen: not within 10s: 1 matching');
    expect(html).toMatch(/<td class="num">5<\/td><td>2 pods on edge-1<\/td><td class="failed">failed<\/td><td class="num">1m30s<\/td>/);
    expect(html).toMatch(/<td>Unknown after the cut<\/td><td class="num">40s<\/td><td class="num">4 s<\/td><td>from step 1 to step 2<\/td>/);
    expect(html).toContain('<td>heal edge-2</td>');
    expect(html).toContain("<td>from step 1 to step 2</td><td>edge-1's link: 187 KB down, 812 B up</td>");
    expect(reportHtml(report({ passed: true })).match(/class="verdict pass"/)).not.toBeNull();
  });

  it('holds the SVG charts: pods Running per node with step marks, and node states', () => {
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain('Pods Running per node');
    expect(html).toMatch(/<polyline [^>]*stroke-dasharray="6 4"/);
    expect(html).toContain("<title>edge-1, cloud's view: Unknown</title>");
    expect(html).toContain('<title>step 4 at 80 s: heal edge-1</title>');
  });

  it("says in its legend which colour is which state, for the cloud's strip and for the edge's", () => {
    const [cloud, edge] = [...html.matchAll(/<p>Under[^\n]*<\/p>/g)].map((m) => m[0]);
    const key = (state: keyof typeof BAND_COLORS): string => `<span class="swatch" style="background:${BAND_COLORS[state]}"></span>${state}`;
    expect(cloud).toMatch(/the cloud's view/);
    for (const state of CLOUD_STATES) expect(cloud).toContain(key(state));
    expect(edge).toMatch(/the edge's own view/);
    for (const state of EDGE_STATES) expect(edge).toContain(key(state));
    expect(cloud).not.toContain(key('offline'));
    expect(edge).not.toContain(key('Unknown'));
  });

  it('escapes what the scenario says', () => {
    expect(html).toContain('A node cut off: &lt;the cloud> &amp; the edge disagree.');
    expect(html).not.toContain('<the cloud>');
  });
});
