import type { Readable, Writable } from 'node:stream';
import { MAX_STREAM_DATA_BYTES, STREAM_WINDOW_BYTES, type FrameDraft, type StreamFrame } from '../../shared/protocol/stream-frame.js';
import { FrameOrder, ReceiveWindow, SendWindow } from '../../shared/protocol/stream-flow.js';
import { STDERR, STDIN, STDOUT, type StreamEnd } from '../../shared/protocol/streams.js';
import type { StreamTarget } from './stream-target.js';

interface Output {
  channel: number;
  data: Buffer;
}

/**
 * [SYNC-20] The edge's end of one stream: a process's (or a port's) output sent within the
 * cloud's window, its readables paused while out of credit so that backpressure reaches the
 * process; input written to it, credit granted once written (after a `drain`). Ends on the
 * process's exit, the cloud's `end`, or `stop` (the link is gone): nothing is left running.
 */
export class EdgeStream {
  private readonly order: FrameOrder;
  private readonly outputWindow: SendWindow;
  private readonly inputWindow = new ReceiveWindow(STREAM_WINDOW_BYTES);
  private readonly pending: Output[] = [];
  private readonly readables: Readable[] = [];
  private openReadables = 0;
  private input: Writable | undefined;
  private undrained = 0;
  private exitCode: number | undefined;
  private target: Exclude<StreamTarget, { end: unknown }> | undefined;
  private done = false;

  constructor(
    readonly id: string,
    window: number,
    private readonly publish: (frame: StreamFrame) => void,
    private readonly onFinished: (stream: EdgeStream) => void,
  ) {
    this.order = new FrameOrder(id, 1);
    this.outputWindow = new SendWindow(window);
  }

  /** What the open started (or why not). A stream stopped meanwhile kills it at once. */
  start(target: StreamTarget): void {
    if ('end' in target) return this.end(target.end);
    this.target = target;
    if (this.done) return this.kill();
    this.send({ type: 'opened', window: STREAM_WINDOW_BYTES });
    if ('socket' in target) {
      target.socket.once('error', (err) => this.end({ error: err.message, reason: 'InternalError' })); // before pump's: an error is no clean end
      this.attachInput(target.socket);
      this.pump(STDOUT, target.socket);
      this.exitCode = 0; // a connection ends when its readable side does
      return;
    }
    const { session } = target;
    if (session.stdin) this.attachInput(session.stdin);
    if (session.stdout) this.pump(STDOUT, session.stdout);
    if (session.stderr) this.pump(STDERR, session.stderr);
    session.exited.then(
      (code) => {
        this.exitCode = code;
        this.flush();
      },
      (err: Error) => this.end({ error: err.message, reason: 'InternalError' }),
    );
  }

  receive(frame: StreamFrame): void {
    if (this.done) return;
    const order = this.order.check(frame);
    if (order === 'duplicate') return;
    if (order === 'gap') return this.end({ error: this.order.lost('the cloud'), reason: 'InternalError' });
    switch (frame.type) {
      case 'data':
        return this.onInput(frame.data);
      case 'credit':
        this.outputWindow.grant(frame.bytes);
        return this.flush();
      case 'eof':
        if (frame.channel === STDIN) this.input?.end();
        return;
      case 'resize':
        if (this.target && 'session' in this.target) this.target.session.resize?.(frame.width, frame.height);
        return;
      case 'end':
        return this.stop();
      default:
        return this.end({ error: `the cloud sent a ${frame.type} frame on an open stream`, reason: 'InternalError' });
    }
  }

  /** Ends it without a word to the cloud (which ended it, or cannot hear): kills what it started. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    this.kill();
    this.onFinished(this);
  }

  private end(end: StreamEnd): void {
    if (this.done) return;
    this.send({ type: 'end', end });
    this.stop();
  }

  private kill(): void {
    for (const r of this.readables) r.removeAllListeners('data');
    if (!this.target) return;
    if ('socket' in this.target) this.target.socket.destroy();
    else this.target.session.kill();
  }

  private send(draft: FrameDraft): void {
    this.publish(this.order.stamp(draft));
  }

  private attachInput(input: Writable): void {
    this.input = input;
    input.on('error', () => undefined); // EPIPE once the process is gone: its exit says the rest
    input.on('drain', () => {
      const bytes = this.undrained;
      this.undrained = 0;
      this.grant(bytes);
    });
  }

  private onInput(data: Buffer): void {
    if (!this.inputWindow.received(data.length)) return this.end({ error: "the cloud sent beyond the stream's window", reason: 'InternalError' });
    const input = this.input;
    if (!input || input.writableEnded || input.destroyed) return this.grant(data.length); // nobody reads it: dropped
    const written = input.write(data);
    if (written && this.undrained === 0) this.grant(data.length);
    else this.undrained += data.length;
  }

  private grant(bytes: number): void {
    const credit = this.inputWindow.passed(bytes);
    if (credit > 0 && !this.done) this.send({ type: 'credit', bytes: credit });
  }

  private pump(channel: number, readable: Readable): void {
    this.readables.push(readable);
    this.openReadables++;
    let open = true;
    const closed = (): void => {
      if (!open) return;
      open = false;
      this.openReadables--;
      this.flush();
    };
    readable.on('data', (chunk: Buffer | string) => {
      this.pending.push({ channel, data: Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk) });
      this.flush();
    });
    readable.once('end', closed);
    readable.once('close', closed);
    readable.once('error', closed);
  }

  /** Sends what the window allows; pauses the readables while anything waits for credit; ends once all is out. */
  private flush(): void {
    if (this.done) return;
    while (this.pending.length > 0 && this.outputWindow.available > 0) {
      const head = this.pending[0]!;
      const bytes = Math.min(head.data.length, this.outputWindow.available, MAX_STREAM_DATA_BYTES);
      this.send({ type: 'data', channel: head.channel, data: head.data.subarray(0, bytes) });
      this.outputWindow.take(bytes);
      if (bytes === head.data.length) this.pending.shift();
      else head.data = head.data.subarray(bytes);
    }
    const blocked = this.pending.length > 0;
    for (const r of this.readables) {
      if (blocked) r.pause();
      else r.resume();
    }
    if (!blocked && this.openReadables === 0 && this.exitCode !== undefined) this.end({ exitCode: this.exitCode });
  }
}
