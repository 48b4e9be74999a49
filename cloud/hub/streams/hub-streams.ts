import type { Clock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import { LogSampler, unloggedFields } from '../../../shared/log-sampler.js';
import { decodeStreamFrame, encodeStreamFrame, STREAM_WINDOW_BYTES, type PodRef, type StreamFrame } from '../../../shared/protocol/stream-frame.js';
import type { StreamRequest } from '../../../shared/protocol/streams.js';
import { parseTopic } from '../../../shared/protocol/topics.js';
import type { TransportMessage } from '../../../shared/transport.js';
import type { Pod } from '../../../shared/types.js';
import type { Reject } from '../inbound-handler.js';
import type { LogTarget } from '../log-requests.js';
import { unreachable } from '../unreachable.js';
import { CloudStream } from './cloud-stream.js';
import { streamWhat } from './stream-words.js';

/** [SYNC-20] How many streams may be open (or opening) to one node, and through one hub; how long an edge has to answer an open. */
export const STREAM_LIMITS = { perNode: 16, perHub: 256, openTimeoutMs: 10_000 };

export interface HubStreamsDeps {
  clock: Clock;
  logger: Logger;
  /** This hub's epoch: stream ids are `<epoch>.<n>`, unique per epoch. */
  epoch: string;
  /** Publishes a frame on the node's stream-down topic (nothing when the hub has no broker session). */
  publish(node: string, payload: Buffer): void;
  /** The node as the hub's sessions see it. */
  target(node: string): LogTarget;
  reject: Reject;
  /** A frame dropped by validation [SYNC-1]. */
  onMalformed(): void;
  limits?: typeof STREAM_LIMITS;
}

/**
 * [SYNC-20] The streams the cloud has open to pods on edges (the apiserver's PodStreams):
 * opens them on the pod's node, routes each frame from a node to its stream (only the node it
 * was opened to may speak for it), bounds them, and ends them when their node goes away.
 */
export class HubStreams {
  private readonly streams = new Map<string, CloudStream>();
  private readonly malformedLog: LogSampler;
  private readonly limits: typeof STREAM_LIMITS;
  private next = 0;

  constructor(private readonly deps: HubStreamsDeps) {
    this.malformedLog = new LogSampler(deps.clock);
    this.limits = deps.limits ?? STREAM_LIMITS;
  }

  get size(): number {
    return this.streams.size;
  }

  open(pod: Pod, request: StreamRequest): Promise<CloudStream> {
    const ref: PodRef = { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' };
    const what = streamWhat(request, ref);
    const node = pod.spec.nodeName;
    if (!node) return Promise.reject(new KedgeError('BadRequest', `pod ${ref.name} does not have a host assigned: cannot ${what}`));
    if (!ref.uid || !ref.name) return Promise.reject(new KedgeError('BadRequest', `the pod has no uid or name: cannot ${what}`));
    const target = this.deps.target(node);
    if (!target.connected) return Promise.reject(new KedgeError('Unavailable', `${unreachable(node, target.offlineSince, this.deps.clock.now())}: cannot ${what}`));
    const tooMany = this.tooMany(node);
    if (tooMany) return Promise.reject(new KedgeError('TooManyRequests', `${tooMany}: cannot ${what}`));

    const stream = new CloudStream(`${this.deps.epoch}.${++this.next}`, node, (frame) => this.publish(node, frame), (s) => this.streams.delete(s.id));
    this.streams.set(stream.id, stream);
    stream.send({ type: 'open', pod: ref, request, window: STREAM_WINDOW_BYTES });
    const { openTimeoutMs } = this.limits;
    const cancel = this.deps.clock.setTimer(openTimeoutMs, () => stream.fail({ error: `node "${node}" did not answer within ${openTimeoutMs / 1000} s: cannot ${what}`, reason: 'Timeout' }, true));
    void stream.opened.then(cancel, cancel);
    return stream.opened;
  }

  /** A message on a node's stream-up topic. */
  receive(message: TransportMessage): void {
    const node = parseTopic(message.topic)?.node;
    const decoded = decodeStreamFrame(message.payload);
    if (!node || !decoded.ok) return this.malformed(message.topic, decoded.ok ? 'not a stream topic' : decoded.reason);
    const frame = decoded.message;
    const stream = this.streams.get(frame.stream);
    if (!stream) {
      // Ended here (or never opened): the edge ends its side too.
      if (frame.type !== 'end') this.publish(node, { type: 'end', stream: frame.stream, seq: 0, end: { error: 'no such stream', reason: 'NotFound' } });
      return;
    }
    if (stream.node !== node) {
      this.deps.reject('stream-of-another-node', `node ${node} sent a ${frame.type} frame of a stream opened to node ${stream.node}`, { node, stream: frame.stream });
      return;
    }
    stream.receive(frame);
  }

  /** The node went away (presence offline): its streams end, and nothing is sent to it. */
  nodeAway(node: string, why = 'its link to the broker was lost'): void {
    for (const stream of [...this.streams.values()]) {
      if (stream.node !== node) continue;
      const error = stream.isOpening ? `node "${node}" went away before it answered (${why})` : `node "${node}" went away (${why})`;
      stream.fail({ error, reason: 'Unavailable' }, false);
    }
  }

  /** The hub lost its broker session: every stream's node is away from here. */
  allAway(why: string): void {
    for (const node of new Set([...this.streams.values()].map((s) => s.node))) this.nodeAway(node, why);
  }

  close(): void {
    for (const stream of [...this.streams.values()]) stream.fail({ error: 'the cloud hub is stopping', reason: 'Unavailable' }, true);
  }

  private tooMany(node: string): string | undefined {
    const { perNode, perHub } = this.limits;
    if (this.streams.size >= perHub) return `the cloud hub has ${perHub} streams open, its most`;
    const toNode = [...this.streams.values()].filter((s) => s.node === node).length;
    return toNode >= perNode ? `node "${node}" has ${perNode} streams open, its most` : undefined;
  }

  private publish(node: string, frame: StreamFrame): void {
    this.deps.publish(node, encodeStreamFrame(frame));
  }

  private malformed(topic: string, reason: string): void {
    this.deps.onMalformed(); // [SYNC-1] dropped, counted, logged (sampled); never fatal
    const unlogged = this.malformedLog.sample('malformed-stream-frame');
    if (unlogged !== undefined) this.deps.logger.warn('dropped a malformed stream frame', { topic, reason, ...unloggedFields(unlogged) });
  }
}
