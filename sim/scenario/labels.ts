/** Where the step marks' labels of a chart go, so that no two overlap. Pure. */

/** A mark's label: its text ('' when there was no room: the mark's tooltip still says it), its row, which side of the mark. */
export interface MarkLabel {
  label: string;
  row: number;
  anchor: 'start' | 'end';
}

/** Rows of labels at the top of the plot, and the width (a generous average) of a character of a label, in pixels. */
export const LABEL_ROWS = 3;
export const LABEL_CHAR_PX = 6.5;
const LABEL_GAP = 4;

/** Places every label in the first row where it clears the one before it; '' where none has room. */
function placeEach(marks: readonly { x: number; text: string }[], right: number): MarkLabel[] {
  const ends: number[] = new Array<number>(LABEL_ROWS).fill(-Infinity);
  return marks.map(({ x, text }) => {
    const w = text.length * LABEL_CHAR_PX;
    // Right of its mark, or left of it where it would run past the plot's right end.
    const anchor = x + 2 + w <= right ? 'start' : 'end';
    const from = anchor === 'start' ? x + 2 : x - 2 - w;
    const row = ends.findIndex((end) => from >= end + LABEL_GAP);
    if (row < 0) return { label: '', row: 0, anchor: 'start' };
    ends[row] = from + w;
    return { label: text, row, anchor };
  });
}

/**
 * Labels for marks in order of x, each with texts from the longest to the shortest: all
 * in their first text when every one finds a row, else all in their next, and so on; a
 * label with no room even in the last is left out. No two labels drawn overlap. Pure.
 */
export function placeLabels(marks: readonly { x: number; texts: readonly string[] }[], right: number): MarkLabel[] {
  const levels = Math.max(1, ...marks.map((m) => m.texts.length));
  let placed: MarkLabel[] = [];
  for (let level = 0; level < levels; level++) {
    placed = placeEach(marks.map((m) => ({ x: m.x, text: m.texts[Math.min(level, m.texts.length - 1)] ?? '' })), right);
    if (placed.every((p) => p.label !== '')) break;
  }
  return placed;
}
