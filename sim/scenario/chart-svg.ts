import { esc, frame, PAD } from '../../bench/svg.js';
import type { BandState, ChartModel } from './chart.js';

/**
 * One colour per state, told apart at a glance: green when all is well, red NotReady, amber
 * Unknown (the cloud has stopped hearing from the node), violet offline (the edge has lost
 * its link), slate while a step has the edge restarting, near black while its node reboots,
 * light grey where a view did not answer.
 */
export const BAND_COLORS: Record<BandState, string> = {
  Ready: '#16a34a',
  connected: '#16a34a',
  NotReady: '#dc2626',
  Unknown: '#f59e0b',
  offline: '#7c3aed',
  restarting: '#64748b',
  rebooting: '#1f2937',
  'no answer': '#d1d5db',
};

const ROW = 16;
const GAP = 4;

/** Inline SVG in HTML needs no namespace declaration (and the page then names no URL at all). */
const inline = (svg: string): string => svg.replace(' xmlns="http://www.w3.org/2000/svg"', '');

const titled = (title: string, inner: string): string => `<g><title>${esc(title)}</title>${inner}</g>`;

/** A step mark's label, haloed in white so that the lines under it do not blur it. */
function markLabel(k: ChartModel['marks'][number]): string {
  const x = k.anchor === 'start' ? k.x + 2 : k.x - 2;
  return `<text x="${x}" y="${PAD.t + 10 + k.row * 11}" font-size="10" text-anchor="${k.anchor}" paint-order="stroke" stroke="white" stroke-width="3">${esc(k.label)}</text>`;
}

/** The pods chart: a step line per node and view, step marks, and a dot per decided expectation. */
export function podsSvg(m: ChartModel): string {
  const bottom = m.height - PAD.b;
  const body = [
    ...m.marks.map((k) => titled(k.title, `<line x1="${k.x}" x2="${k.x}" y1="${PAD.t}" y2="${bottom}" stroke="#6b7280" stroke-dasharray="3 3"/>`)),
    ...m.lines.flatMap((l) =>
      l.paths.map((p) =>
        titled(l.name, `<polyline fill="none" stroke="${l.color}" stroke-width="2"${l.dashed ? ' stroke-dasharray="6 4"' : ''} points="${p.map(([x, y]) => `${x},${y}`).join(' ')}"/>`),
      ),
    ),
    ...m.checks.map((c) => titled(c.title, `<circle cx="${c.x}" cy="${bottom - 6}" r="5" fill="${c.ok ? '#16a34a' : '#dc2626'}" stroke="white"/>`)),
    // Last, so that they are on top.
    ...m.marks.filter((k) => k.label).map((k) => titled(k.title, markLabel(k))),
  ];
  return inline(frame({ title: 'Pods Running per node', xLabel: 'cluster time (s)', yLabel: 'pods Running' }, m.width, m.height, m.xMax, m.yMax, body));
}

/** The node states under the pods chart, on the same time axis: per node the cloud's view, then the edge's. */
export function bandsSvg(m: ChartModel): string {
  const height = m.bands.length * (ROW + GAP) + GAP;
  const rows = m.bands.flatMap((row, i) => {
    const y = GAP + i * (ROW + GAP);
    return [
      `<text x="${PAD.l - 4}" y="${y + ROW - 4}" text-anchor="end">${esc(row.label)}</text>`,
      ...row.segments.map((s) => titled(`${row.node}, ${row.view === 'cloud' ? "cloud's view" : "edge's view"}: ${s.state}`, `<rect x="${s.x}" y="${y}" width="${s.w}" height="${ROW}" fill="${BAND_COLORS[s.state]}"/>`)),
    ];
  });
  const marks = m.marks.map((k) => `<line x1="${k.x}" x2="${k.x}" y1="0" y2="${height}" stroke="#374151" stroke-dasharray="3 3"/>`);
  return [
    `<svg width="${m.width}" height="${height}" viewBox="0 0 ${m.width} ${height}" font-family="sans-serif" font-size="10" role="img" aria-label="node states over time">`,
    ...rows,
    ...marks,
    '</svg>',
  ].join('\n');
}
