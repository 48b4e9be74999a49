/** Minimal, dependency-free SVG charts for docs/benchmarks.md. */
export interface Series {
  name: string;
  points: [number, number][];
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  width?: number;
  height?: number;
}

export const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c'];
export const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((m) => m >= v)!;
}

/** Room around the plot area for the title, tick labels and axis labels. */
export const PAD = { l: 56, r: 16, t: 32, b: 40 };

/** An SVG with title, grid, ticks and axis labels around `body` (drawn in the PAD-inset plot area). */
export function frame(o: ChartOptions, w: number, h: number, xMax: number, yMax: number, body: string[]): string {
  const pad = PAD;
  const ticks: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const y = pad.t + ((h - pad.t - pad.b) * (4 - i)) / 4;
    const x = pad.l + ((w - pad.l - pad.r) * i) / 4;
    ticks.push(`<line x1="${pad.l}" x2="${w - pad.r}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`);
    ticks.push(`<text x="${pad.l - 6}" y="${y + 4}" text-anchor="end">${+((yMax * i) / 4).toPrecision(3)}</text>`);
    ticks.push(`<text x="${x}" y="${h - pad.b + 16}" text-anchor="middle">${+((xMax * i) / 4).toPrecision(3)}</text>`);
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${w / 2}" y="18" text-anchor="middle" font-size="13" font-weight="bold">${esc(o.title)}</text>`,
    ...ticks,
    `<text x="${w / 2}" y="${h - 6}" text-anchor="middle">${esc(o.xLabel)}</text>`,
    `<text transform="translate(12 ${h / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`,
    ...body,
    '</svg>',
  ].join('\n');
}

/** One polyline per series, with a legend. */
export function lineChart(o: ChartOptions, series: Series[]): string {
  const w = o.width ?? 560;
  const h = o.height ?? 300;
  const all = series.flatMap((s) => s.points);
  const xMax = niceMax(Math.max(...all.map((p) => p[0])));
  const yMax = niceMax(Math.max(...all.map((p) => p[1])));
  const sx = (x: number): number => 56 + ((w - 72) * x) / xMax;
  const sy = (y: number): number => 32 + (h - 72) * (1 - y / yMax);
  const body = series.flatMap((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    return [
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts}"/>`,
      `<text x="${w - 20}" y="${48 + i * 14}" text-anchor="end" fill="${color}">${esc(s.name)}</text>`,
    ];
  });
  return frame(o, w, h, xMax, yMax, body);
}

/** The empirical CDF of `values` as a series: x = value, y = share of samples at or below it. */
export function cdf(name: string, values: number[]): Series {
  const sorted = [...values].sort((a, b) => a - b);
  const step = Math.max(1, Math.floor(sorted.length / 200));
  const points: [number, number][] = [];
  for (let i = 0; i < sorted.length; i += step) points.push([sorted[i]!, (i + 1) / sorted.length]);
  if (sorted.length) points.push([sorted[sorted.length - 1]!, 1]);
  return { name, points };
}
