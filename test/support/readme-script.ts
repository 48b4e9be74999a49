/**
 * The README as a script: the shell blocks of one section, each command line with the time
 * it may take, and the demo's ports in place of the README's defaults.
 */

export interface ScriptLine {
  /** 1-based line number in the markdown (the first line of a continued command). */
  line: number;
  command: string;
  /** What the line says it may take ("(up to 40 s)", "within 2 min"), else the default. */
  limitMs: number;
}

/** A port the README writes as its default and the one the demo under test listens on. */
export interface PortSubstitution {
  readme: number;
  actual: number;
  what: string;
}

const FENCE = /^```(\S*)/;
const SHELLS = new Set(['sh', 'bash', 'shell']);
const STATED = /\b(?:up to|within) (\d+(?:\.\d+)?) ?(s|sec|seconds?|min|minutes?)\b/;

/** The lines of the `## heading` section, up to the next `## ` heading: [line number, text]. */
function sectionLines(markdown: string, heading: string): [number, string][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).map((text, i) => [start + 2 + i, text]);
}

/** The time a line states for itself, in ms, else `defaultMs`. */
export function statedLimitMs(text: string, defaultMs: number): number {
  const m = STATED.exec(text);
  if (!m) return defaultMs;
  return Number(m[1]) * (m[2]!.startsWith('m') ? 60_000 : 1000);
}

/**
 * Every command of the shell blocks (```sh, ```bash, ```shell) in the `## heading` section
 * and its subsections, in order: blank and comment-only lines skipped, `\` continuations joined.
 */
export function sectionCommands(markdown: string, heading: string, defaultMs: number): ScriptLine[] {
  const out: ScriptLine[] = [];
  let inShell: boolean | undefined;
  let pending: { line: number; text: string } | undefined;
  for (const [n, text] of sectionLines(markdown, heading)) {
    const fence = FENCE.exec(text);
    if (fence) {
      inShell = inShell === undefined ? SHELLS.has(fence[1]!) : undefined;
      continue;
    }
    if (!inShell) continue;
    const joined = pending ? `${pending.text}\n${text}` : text;
    const line = pending?.line ?? n;
    if (/\\$/.test(text)) {
      pending = { line, text: joined };
      continue;
    }
    pending = undefined;
    if (/^\s*(#.*)?$/.test(joined)) continue;
    out.push({ line, command: joined, limitMs: statedLimitMs(joined, defaultMs) });
  }
  return out;
}

/** `command` with each README default port (a whole number, not part of a longer one) replaced by the demo's. */
export function withDemoPorts(command: string, table: readonly PortSubstitution[]): string {
  return table.reduce((text, s) => text.replace(new RegExp(`(?<!\\d)${s.readme}(?!\\d)`, 'g'), String(s.actual)), command);
}

/** Whether a line only sets the shell's state for the lines after it (`export`, `cd`, `NAME=value`). */
export function setsShellState(command: string): boolean {
  return /^(export\s|cd\s|[A-Za-z_]\w*=\S*\s*(#.*)?$)/.test(command.trim());
}
