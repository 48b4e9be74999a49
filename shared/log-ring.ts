/** One line a component logged: its number in the ring (from 0, never reused), when, and the text. */
export interface RingLine {
  seq: number;
  time: number;
  text: string;
}

/** The last lines a component logged, bounded by count and by bytes: the oldest go first. */
export class LogRing {
  private readonly lines: RingLine[] = [];
  private bytes = 0;
  private next = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  push(time: number, text: string): void {
    this.lines.push({ seq: this.next++, time, text });
    this.bytes += Buffer.byteLength(text) + 1;
    while (this.lines.length > this.maxLines || (this.bytes > this.maxBytes && this.lines.length > 1)) this.bytes -= Buffer.byteLength(this.lines.shift()!.text) + 1;
  }

  /** The lines kept whose number is `from` or later (all: from 0). */
  from(from = 0): RingLine[] {
    const first = this.lines[0];
    if (!first) return [];
    return this.lines.slice(Math.max(0, from - first.seq));
  }

  /** The number the next line will have. */
  get end(): number {
    return this.next;
  }
}
