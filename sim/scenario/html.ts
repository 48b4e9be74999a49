import { esc } from '../../bench/svg.js';
import { CLOUD_STATES, EDGE_STATES, planChart, type BandState, type ChartModel } from './chart.js';
import { BAND_COLORS, bandsSvg, podsSvg } from './chart-svg.js';
import { formatDuration } from './describe.js';
import { describeBytes, verdictLine, type ScenarioReport } from './report.js';

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; color: #111827; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
.verdict { padding: .75rem 1rem; border-radius: 6px; color: white; }
.verdict.pass { background: #166534; } .verdict.fail { background: #991b1b; }
.verdict h1 { margin: 0; font-size: 1.4rem; } .verdict p { margin: .25rem 0 0; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; font-size: 14px; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid #e5e7eb; }
td.num { text-align: right; white-space: nowrap; }
.held { color: #166534; font-weight: 600; } .failed { color: #991b1b; font-weight: 600; } .skipped { color: #6b7280; }
figure { margin: 0; overflow-x: auto; } figcaption { font-size: 13px; color: #374151; }
.key { display: inline-block; width: 1.6em; height: 0; border-top: 3px solid; vertical-align: middle; margin: 0 .3em 0 .8em; }
.swatch { display: inline-block; width: .9em; height: .9em; vertical-align: middle; margin: 0 .3em 0 .8em; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; } dt { color: #374151; } dd { margin: 0; }
`;

const seconds = (s: number | undefined): string => (s === undefined ? '–' : formatDuration(s * 1000));

function expectationsTable(r: ScenarioReport): string {
  const rows = r.expectations.map((e) => {
    const css = e.outcome === 'held' ? 'held' : e.outcome === 'failed' ? 'failed' : 'skipped';
    return `<tr><td class="num">${e.step}</td><td>${esc(e.text)}</td><td class="${css}">${e.outcome}</td><td class="num">${seconds(e.at)}</td><td>${esc(e.seen ?? '')}</td></tr>`;
  });
  return `<table><thead><tr><th>step</th><th>expectation</th><th>result</th><th>at</th><th>seen</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function measurementsTable(r: ScenarioReport): string {
  if (r.measurements.length === 0) return '';
  const rows = r.measurements.map(
    (m) =>
      `<tr><td>${esc(m.name)}</td><td class="num">${seconds(m.seconds)}</td><td class="num">${m.realSeconds} s</td><td>from step ${m.fromStep || '(start)'} to step ${m.step}</td><td>${m.bytes ? esc(describeBytes(m.bytes)) : ''}</td></tr>`,
  );
  return `<h2>Measured</h2><table><thead><tr><th>what</th><th>cluster time</th><th>real time</th><th>between</th><th>bytes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function stepsTable(r: ScenarioReport): string {
  const rows = r.steps.map(
    (s) => `<tr><td class="num">${s.number}</td><td class="num">${seconds(s.start)}</td><td class="num">${seconds(s.end)}</td><td>${esc(s.text)}</td><td class="failed">${esc(s.error ?? '')}</td></tr>`,
  );
  return `<table><thead><tr><th>step</th><th>start</th><th>end</th><th>what</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const swatches = (states: readonly BandState[]): string =>
  states.map((state) => `<span class="swatch" style="background:${BAND_COLORS[state]}"></span>${state}`).join(' ');

function legend(m: ChartModel): string {
  const lines = m.lines.map((l) => `<span class="key" style="border-top-color:${l.color};border-top-style:${l.dashed ? 'dashed' : 'solid'}"></span>${esc(l.name)}`);
  return [
    `<figcaption><p>Pods Running:${lines.join(' ')} (the edge's own count is 0 while its node reboots, and missing where it did not answer)</p>`,
    `<p>Under each node's name, the cloud's view of the node (its Ready condition):${swatches(CLOUD_STATES)}</p>`,
    `<p>Under it, "(edge)", the edge's own view of its link:${swatches(EDGE_STATES)} (restarting: a step has its process down, its containers carry on; rebooting: its node is down, nothing runs)</p>`,
    '<p>Dashed lines: where steps started, each labelled with its number and kind (hover over it for the whole step; a label with no room is shortened or left out). Dots: expectations, green when they held, red when not (at the moment decided).</p></figcaption>',
  ].join('\n');
}

/** The report as one self-contained page: inline CSS and SVG, no script, nothing fetched. */
export function reportHtml(r: ScenarioReport): string {
  const model = planChart(r);
  const verdict = r.passed ? 'PASSED' : 'FAILED';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>kedge scenario ${esc(r.scenario.name)}: ${verdict}</title>
<style>${STYLE}</style></head>
<body>
<header class="verdict ${r.passed ? 'pass' : 'fail'}"><h1>${esc(r.scenario.name)}: ${verdict}</h1><p>${esc(verdictLine(r))}</p></header>
<p>${esc(r.scenario.description)}</p>
<dl><dt>nodes</dt><dd>${r.scenario.nodes}</dd><dt>time scale</dt><dd>${r.timeScale} (1 s of real time is ${r.timeScale} s in the cluster)</dd>
<dt>started</dt><dd>${esc(r.startedAt)}</dd><dt>took</dt><dd>${r.realSeconds} s real</dd><dt>scenario</dt><dd>${esc(r.scenario.source)}</dd></dl>
<h2>Expectations</h2>
${expectationsTable(r)}
${measurementsTable(r)}
<h2>Timeline</h2>
<figure>
${podsSvg(model)}
${bandsSvg(model)}
${legend(model)}
</figure>
<h2>Steps</h2>
${stepsTable(r)}
</body>
</html>
`;
}
