import { STDIN, type StreamEnd } from '../../../shared/protocol/streams.js';
import type { Pod } from '../../../shared/types.js';
import type { PodStream, PodStreams } from '../subresources/pod-streams.js';
import { HeaderZlib } from './spdy-headers.js';
import {
  dataFrame, goAwayFrame, pingFrame, rstStreamFrame, synReplyFrame, SpdyFrameReader, RST_PROTOCOL_ERROR, RST_REFUSED_STREAM, type SpdyFrame,
} from './spdy-frames.js';
import { inputGate, sendBounded, serialQueue, type Later, type StreamSocket } from './stream-socket.js';

/** The WebSocket subprotocol of port-forward: SPDY/3.1 session bytes inside binary messages (kubectl 1.31+). */
export const PORTFORWARD_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';

export interface PortForwardLimits {
  /** Forwarded connections open at once in one session (each a pair of SPDY streams). */
  connections: number;
  /** Output bytes queued on the socket before reading more from the pod. */
  sendBufferBytes: number;
  /** Input bytes (all connections) waiting for the pod before the socket stops being read. */
  inputBufferBytes: number;
  /** The longest SPDY frame taken from the client. */
  maxFrameBytes: number;
}

export const DEFAULT_PORTFORWARD_LIMITS: PortForwardLimits = { connections: 16, sendBufferBytes: 256 * 1024, inputBufferBytes: 256 * 1024, maxFrameBytes: 1024 * 1024 };

/** One forwarded connection: kubectl's error stream and data stream with the same requestid. */
interface Pair {
  requestId: string;
  port: number;
  errorId?: number;
  dataId?: number;
  stream?: PodStream;
  /** Input in order, once the pod's stream is open. */
  later?: Later;
  done: boolean;
}

/**
 * Serves kubectl's port-forward over one WebSocket: SPDY/3 frames in binary messages. Each
 * local connection of kubectl is an error stream and a data stream paired by requestid; each
 * pair gets its own PodStream to the pod's port. Bytes of the data stream go to the pod, the
 * pod's bytes come back as DATA frames; a failure is written on the error stream (kubectl
 * prints it), then both streams end.
 */
export function servePortForward(socket: StreamSocket, pod: Pod, streams: PodStreams, limits: PortForwardLimits = DEFAULT_PORTFORWARD_LIMITS): void {
  const session = new PortForwardSession(socket, pod, streams, limits);
  let inbound = Promise.resolve();
  socket.onMessage((bytes) => {
    inbound = inbound.then(() => session.receive(bytes));
  });
  socket.onClose(() => session.close());
}

class PortForwardSession {
  private readonly reader: SpdyFrameReader;
  private readonly zlib = new HeaderZlib();
  private readonly pairs = new Map<string, Pair>();
  private readonly byStreamId = new Map<number, Pair>();
  private readonly gate: ReturnType<typeof inputGate>;
  /** Frames out, in order (a SYN_REPLY waits for its header block). */
  private out: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly socket: StreamSocket,
    private readonly pod: Pod,
    private readonly streams: PodStreams,
    private readonly limits: PortForwardLimits,
  ) {
    this.reader = new SpdyFrameReader(limits.maxFrameBytes);
    this.gate = inputGate(socket, limits.inputBufferBytes);
  }

  async receive(bytes: Buffer): Promise<void> {
    if (this.closed) return;
    try {
      for (const frame of this.reader.push(bytes)) await this.onFrame(frame);
    } catch {
      this.send(goAwayFrame(0, RST_PROTOCOL_ERROR));
      this.socket.close(1002);
      this.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pair of this.pairs.values()) pair.stream?.cancel('the client closed the connection');
    this.pairs.clear();
    this.byStreamId.clear();
    this.zlib.close();
  }

  private send(frame: Buffer | Promise<Buffer>): Promise<void> {
    this.out = this.out.then(async () => {
      const bytes = await frame;
      if (!this.closed) await sendBounded(this.socket, bytes, this.limits.sendBufferBytes);
    }).catch(() => {});
    return this.out;
  }

  private async onFrame(frame: SpdyFrame): Promise<void> {
    if (frame.type === 'syn_stream') await this.onSynStream(frame.streamId, frame.headerBlock);
    else if (frame.type === 'syn_reply' || frame.type === 'headers') await this.zlib.decompress(frame.headerBlock); // keeps the shared context in step
    else if (frame.type === 'data') this.onData(frame.streamId, frame.data, frame.fin);
    else if (frame.type === 'ping') void this.send(pingFrame(frame.id));
    else if (frame.type === 'rst_stream') this.reset(this.byStreamId.get(frame.streamId));
    else if (frame.type === 'goaway') this.socket.close(1000);
  }

  private async onSynStream(streamId: number, headerBlock: Buffer): Promise<void> {
    const headers = await this.zlib.decompress(headerBlock);
    const kind = headers.streamtype;
    const port = Number(headers.port);
    const requestId = headers.requestid;
    const known = requestId === undefined ? undefined : this.pairs.get(requestId);
    const valid = (kind === 'error' || kind === 'data') && Number.isInteger(port) && port >= 1 && port <= 65535 && requestId !== undefined;
    // Refused too: more halves waiting for their other half than connections may be open.
    if (!valid || (!known && this.pairs.size >= 2 * this.limits.connections)) return void this.send(rstStreamFrame(streamId, RST_REFUSED_STREAM));
    void this.send(this.zlib.compress({}).then((block) => synReplyFrame(streamId, block, false)));
    const pair = known ?? { requestId, port, done: false };
    this.pairs.set(requestId, pair);
    this.byStreamId.set(streamId, pair);
    if (kind === 'error') pair.errorId = streamId;
    else pair.dataId = streamId;
    if (pair.errorId !== undefined && pair.dataId !== undefined && !pair.later) this.start(pair);
  }

  private start(pair: Pair): void {
    const active = [...this.pairs.values()].filter((p) => p.later !== undefined).length;
    if (active >= this.limits.connections) return this.finish(pair, `too many forwarded connections: at most ${this.limits.connections} at once`);
    const opening = this.streams.open(this.pod, { kind: 'portforward', port: pair.port });
    pair.later = serialQueue(opening);
    opening.then(
      (stream) => {
        if (this.closed || pair.done) return stream.cancel('the client went away');
        pair.stream = stream;
        void this.pump(pair, stream);
      },
      (err: unknown) => this.finish(pair, forwardingError(this.pod, pair.port, err instanceof Error ? err.message : String(err))),
    );
  }

  private async pump(pair: Pair, stream: PodStream): Promise<void> {
    for (let chunk = await stream.read(); chunk && !this.closed; chunk = await stream.read()) await this.send(dataFrame(pair.dataId!, chunk.data, false));
    const end: StreamEnd = await stream.ended;
    this.finish(pair, 'error' in end ? forwardingError(this.pod, pair.port, end.error) : undefined);
  }

  private onData(streamId: number, data: Buffer, fin: boolean): void {
    const pair = this.byStreamId.get(streamId);
    const later = pair?.later;
    if (!pair || streamId !== pair.dataId || !later) return; // the error stream carries nothing from the client
    if (data.length > 0) this.gate(later, data.length, async () => pair.stream?.write(STDIN, data));
    if (fin) later(() => pair.stream?.closeInput(STDIN));
  }

  private reset(pair: Pair | undefined): void {
    if (!pair) return;
    pair.stream?.cancel('the client reset the stream');
    this.finish(pair);
  }

  /** Ends a pair: the error (if any) on its error stream, then FIN on both. */
  private finish(pair: Pair, message?: string): void {
    if (pair.done) return;
    pair.done = true;
    this.pairs.delete(pair.requestId);
    for (const id of [pair.errorId, pair.dataId]) if (id !== undefined) this.byStreamId.delete(id);
    if (pair.errorId !== undefined && message) void this.send(dataFrame(pair.errorId, Buffer.from(message), false));
    if (pair.errorId !== undefined) void this.send(dataFrame(pair.errorId, Buffer.alloc(0), true));
    if (pair.dataId !== undefined) void this.send(dataFrame(pair.dataId, Buffer.alloc(0), true));
  }
}

/** The kubelet's words (kubectl prints them after `an error occurred forwarding L -> R: `). */
function forwardingError(pod: Pod, port: number, why: string): string {
  return `error forwarding port ${port} to pod ${pod.metadata.namespace}/${pod.metadata.name}, uid ${pod.metadata.uid ?? ''}: ${why}`;
}
