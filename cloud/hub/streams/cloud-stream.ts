import { KedgeError } from '../../../shared/errors.js';
import { MAX_STREAM_DATA_BYTES, STREAM_WINDOW_BYTES, type FrameDraft, type StreamFrame } from '../../../shared/protocol/stream-frame.js';
import { FrameOrder, ReceiveWindow, SendWindow } from '../../../shared/protocol/stream-flow.js';
import type { StreamEnd } from '../../../shared/protocol/streams.js';
import { endError } from './stream-words.js';

/** A piece of output: its channel (STDOUT, STDERR) and bytes. */
export interface StreamChunk {
  channel: number;
  data: Buffer;
}

/** What the apiserver uses of a stream (its PodStream). */
export type HubPodStream = Pick<CloudStream, 'read' | 'write' | 'closeInput' | 'resize' | 'ended' | 'cancel'>;

type Settle = { resolve(stream: CloudStream): void; reject(err: Error): void };

/**
 * [SYNC-20] The cloud's end of one stream: frames from the edge checked for order and window,
 * output queued until read (the edge's credit follows the reads), input sent within the
 * edge's window. Opening until the edge's `opened`; ended by either side or by the hub.
 * It is the apiserver's PodStream (cloud/apiserver/subresources/pod-streams.ts), which the hub may not import.
 */
export class CloudStream {
  private readonly output: StreamChunk[] = [];
  private reader: ((chunk: StreamChunk | undefined) => void) | undefined;
  private readonly outputWindow = new ReceiveWindow(STREAM_WINDOW_BYTES);
  private inputWindow = new SendWindow(0);
  private writing: Promise<void> = Promise.resolve();
  private readonly order: FrameOrder;
  private opening: Settle | undefined;
  private result: StreamEnd | undefined;
  private settleEnded!: (end: StreamEnd) => void;
  readonly ended = new Promise<StreamEnd>((resolve) => (this.settleEnded = resolve));
  readonly opened: Promise<CloudStream>;

  constructor(
    readonly id: string,
    readonly node: string,
    private readonly publish: (frame: StreamFrame) => void,
    private readonly onFinished: (stream: CloudStream) => void,
  ) {
    this.order = new FrameOrder(id);
    this.opened = new Promise<CloudStream>((resolve, reject) => (this.opening = { resolve, reject }));
  }

  get isOpening(): boolean {
    return this.opening !== undefined;
  }

  send(draft: FrameDraft): void {
    this.publish(this.order.stamp(draft));
  }

  /** A frame from the stream's node. */
  receive(frame: StreamFrame): void {
    if (this.result) return;
    const order = this.order.check(frame);
    if (order === 'duplicate') return;
    if (order === 'gap') return this.fail({ error: this.order.lost(`node "${this.node}"`), reason: 'InternalError' }, true);
    switch (frame.type) {
      case 'opened':
        return this.onOpened(frame.window);
      case 'data':
        return this.onData(frame.channel, frame.data);
      case 'credit':
        return this.inputWindow.grant(frame.bytes);
      case 'end':
        return this.finish(frame.end);
      default:
        return this.fail({ error: `node "${this.node}" sent a ${frame.type} frame, which only the cloud sends`, reason: 'InternalError' }, true);
    }
  }

  /** Ends it from the cloud's side: `tellEdge` unless the edge cannot hear it (it went away). */
  fail(end: Extract<StreamEnd, { error: string }>, tellEdge: boolean): void {
    if (this.result) return;
    if (tellEdge) this.send({ type: 'end', end });
    this.finish(end);
  }

  read(): Promise<StreamChunk | undefined> {
    const chunk = this.output.shift();
    if (chunk) {
      const credit = this.outputWindow.passed(chunk.data.length);
      if (credit > 0 && !this.result) this.send({ type: 'credit', bytes: credit });
      return Promise.resolve(chunk);
    }
    if (this.result) {
      this.settleEnded(this.result);
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => (this.reader = resolve));
  }

  write(channel: number, data: Buffer): Promise<void> {
    const run = this.writing.then(() => this.writeNow(channel, data));
    this.writing = run.catch(() => undefined);
    return run;
  }

  closeInput(channel: number): void {
    if (!this.result) this.send({ type: 'eof', channel });
  }

  resize(width: number, height: number): void {
    if (!this.result) this.send({ type: 'resize', width, height });
  }

  cancel(reason: string): void {
    if (this.result) return;
    this.fail({ error: reason, reason: 'Unavailable' }, true);
    this.output.length = 0;
    this.settleEnded(this.result!);
  }

  private onOpened(window: number): void {
    if (!this.opening) return this.fail({ error: `node "${this.node}" opened the stream twice`, reason: 'InternalError' }, true);
    this.inputWindow = new SendWindow(window);
    this.opening.resolve(this);
    this.opening = undefined;
  }

  private onData(channel: number, data: Buffer): void {
    if (this.opening) return this.fail({ error: `node "${this.node}" sent output before it opened the stream`, reason: 'InternalError' }, true);
    if (!this.outputWindow.received(data.length)) return this.fail({ error: `node "${this.node}" sent beyond the stream's window`, reason: 'InternalError' }, true);
    this.output.push({ channel, data });
    this.wakeReader();
  }

  /** A waiting read gets what is there now (a chunk, or the end). */
  private wakeReader(): void {
    const reader = this.reader;
    this.reader = undefined;
    if (reader) void this.read().then(reader);
  }

  private finish(end: StreamEnd): void {
    if (this.result) return;
    this.result = end;
    if (this.opening) {
      this.opening.reject(endError(end));
      this.opening = undefined;
    }
    this.inputWindow.wake();
    if (this.output.length === 0) this.settleEnded(end);
    this.wakeReader();
    this.onFinished(this);
  }

  private async writeNow(channel: number, data: Buffer): Promise<void> {
    for (let offset = 0; offset < data.length; ) {
      await this.inputRoom();
      const bytes = Math.min(data.length - offset, this.inputWindow.available, MAX_STREAM_DATA_BYTES);
      this.send({ type: 'data', channel, data: data.subarray(offset, offset + bytes) });
      this.inputWindow.take(bytes);
      offset += bytes;
    }
    await this.inputRoom();
  }

  private async inputRoom(): Promise<void> {
    while (!this.result && this.inputWindow.available <= 0) await this.inputWindow.whenOpen();
    if (this.result) throw 'error' in this.result ? endError(this.result) : new KedgeError('Unavailable', 'the stream has ended');
  }
}
