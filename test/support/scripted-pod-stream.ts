import type { StreamEnd } from '../../shared/protocol/streams.js';
import type { PodStream, StreamChunk } from '../../cloud/apiserver/subresources/pod-streams.js';

/** A PodStream a test drives: output it pushes, then an end; records input, resizes, cancels and how far output was read. */
export class ScriptedPodStream implements PodStream {
  readonly input: Buffer[] = [];
  readonly resizes: [number, number][] = [];
  inputClosed = false;
  cancelled: string | undefined;
  reads = 0;
  readonly ended: Promise<StreamEnd>;
  private readonly chunks: (StreamChunk | undefined)[] = [];
  private waiting: ((chunk: StreamChunk | undefined) => void) | undefined;
  private settle!: (end: StreamEnd) => void;
  private writeGate: Promise<void> = Promise.resolve();

  constructor() {
    this.ended = new Promise((resolve) => (this.settle = resolve));
  }

  output(channel: number, text: string): void {
    this.deliver({ channel, data: Buffer.from(text) });
  }

  end(end: StreamEnd): void {
    this.deliver(undefined);
    this.settle(end);
  }

  /** Writes wait for `gate` (the edge's window is full). */
  holdWrites(gate: Promise<void>): void {
    this.writeGate = gate;
  }

  read(): Promise<StreamChunk | undefined> {
    this.reads++;
    if (this.chunks.length > 0) return Promise.resolve(this.chunks.shift());
    return new Promise((resolve) => (this.waiting = resolve));
  }

  async write(_channel: number, data: Buffer): Promise<void> {
    this.input.push(data);
    await this.writeGate;
  }

  closeInput(): void {
    this.inputClosed = true;
  }

  resize(width: number, height: number): void {
    this.resizes.push([width, height]);
  }

  cancel(reason: string): void {
    this.cancelled ??= reason;
    this.end({ error: reason, reason: 'InternalError' });
  }

  private deliver(chunk: StreamChunk | undefined): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(chunk);
    else this.chunks.push(chunk);
  }
}
