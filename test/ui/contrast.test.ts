import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const css = readFileSync(join(import.meta.dirname, '../../ui/static/style.css'), 'utf8');
const colours = new Map([...css.matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1]!, m[2]!]));

/** WCAG 2 relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const pairs = [...colours.keys()].filter((k) => k.endsWith('-fg')).map((fg) => [fg, fg.replace(/-fg$/, '-bg')] as const);

describe("the dashboard's colours", () => {
  it('pair every foreground with a background', () => {
    expect(pairs.length).toBeGreaterThan(8);
    for (const [, bg] of pairs) expect(colours.has(bg), bg).toBe(true);
  });

  it.each(pairs)('%s on %s reads at 4.5:1 or more', (fg, bg) => {
    expect(contrast(colours.get(fg)!, colours.get(bg)!)).toBeGreaterThanOrEqual(4.5);
  });

  it('keep muted text and the plain button readable on panels too', () => {
    for (const fg of ['muted-fg', 'plain-fg', 'bad-fg']) expect(contrast(colours.get(fg)!, colours.get('panel-bg')!), fg).toBeGreaterThanOrEqual(4.5);
  });
});
