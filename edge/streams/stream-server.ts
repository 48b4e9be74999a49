import type { Observable, Subscription } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { LogSampler, unloggedFields } from '../../shared/log-sampler.js';
import { decodeStreamFrame, encodeStreamFrame, type StreamFrame } from '../../shared/protocol/stream-frame.js';
import type { StreamEnd } from '../../shared/protocol/streams.js';
import type { Connectivity } from '../../shared/transport.js';
import { EdgeStream } from './edge-stream.js';
import { startTarget, type TargetDeps } from './stream-target.js';

/** The most streams an edge serves at once (the cloud holds each node to the same). */
export const MAX_EDGE_STREAMS = 16;

export interface StreamServerDeps extends TargetDeps {
  clock: Clock;
  logger: Logger;
  /** Frames on the node's stream-down topic. */
  frames$: Observable<Buffer>;
  /** Publishes a frame on the node's stream-up topic; rejects without a broker session. */
  publish(payload: Buffer): Promise<void>;
  connectivity$: Observable<Connectivity>;
}

/**
 * [SYNC-20] The edge's streams: opens what the cloud asks for on the pods this edge holds,
 * hands each frame to its stream, and stops every stream (kills its process, closes its
 * socket) when the broker session is lost, since the cloud then ends them too.
 */
export class StreamServer {
  private readonly streams = new Map<string, EdgeStream>();
  private readonly malformedLog: LogSampler;
  private readonly subscriptions: Subscription[];
  private malformedCount = 0;

  constructor(private readonly deps: StreamServerDeps) {
    this.malformedLog = new LogSampler(deps.clock);
    this.subscriptions = [
      deps.frames$.subscribe((payload) => this.onPayload(payload)),
      deps.connectivity$.subscribe(({ connected }) => {
        if (!connected) this.stopAll();
      }),
    ];
  }

  get size(): number {
    return this.streams.size;
  }

  /** Frames dropped by validation [SYNC-1]. */
  get malformed(): number {
    return this.malformedCount;
  }

  /** Stops every stream and listens no more. */
  close(): void {
    for (const s of this.subscriptions) s.unsubscribe();
    this.stopAll();
  }

  private stopAll(): void {
    for (const stream of [...this.streams.values()]) stream.stop();
  }

  private onPayload(payload: Buffer): void {
    const decoded = decodeStreamFrame(payload);
    if (!decoded.ok) return this.dropMalformed(decoded.reason, payload.length);
    const frame = decoded.message;
    const stream = this.streams.get(frame.stream);
    if (stream) return stream.receive(frame);
    if (frame.type === 'open') return void this.open(frame);
    // Not (or no longer) open here, after a restart say: the cloud ends its side.
    if (frame.type !== 'end') this.refuse(frame.stream, { error: 'no such stream', reason: 'NotFound' });
  }

  private async open(frame: Extract<StreamFrame, { type: 'open' }>): Promise<void> {
    if (frame.seq !== 0) return this.refuse(frame.stream, { error: 'an open must be the first frame of its stream', reason: 'BadRequest' });
    if (this.streams.size >= MAX_EDGE_STREAMS) return this.refuse(frame.stream, { error: `node ${this.deps.nodeName} serves ${MAX_EDGE_STREAMS} streams, its most`, reason: 'TooManyRequests' });
    const stream = new EdgeStream(frame.stream, frame.window, (f) => this.publish(f), (s) => this.streams.delete(s.id));
    this.streams.set(stream.id, stream);
    const target = await startTarget(this.deps, frame.pod, frame.request).catch((err: Error) => ({ end: { error: err.message, reason: 'InternalError' as const } }));
    stream.start(target);
  }

  private refuse(stream: string, end: StreamEnd): void {
    this.publish({ type: 'end', stream, seq: 0, end });
  }

  private publish(frame: StreamFrame): void {
    this.deps.publish(encodeStreamFrame(frame)).catch((err: Error) => this.deps.logger.debug('stream frame not sent', { stream: frame.stream, type: frame.type, error: err.message }));
  }

  private dropMalformed(reason: string, bytes: number): void {
    this.malformedCount++; // [SYNC-1] dropped, counted, logged (sampled); never fatal
    const unlogged = this.malformedLog.sample('malformed-stream-frame');
    if (unlogged !== undefined) this.deps.logger.warn('dropped a malformed stream frame', { reason, bytes, ...unloggedFields(unlogged) });
  }
}
