import { filter, map, share, Subject, type Observable } from 'rxjs';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { LogSampler, unloggedFields } from '../../shared/log-sampler.js';
import { decodeDown, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage, type ObjectRef, type Presence, type UpDraft, type UpMessage } from '../../shared/protocol/envelope.js';
import { WIRE_PATCH } from '../../shared/protocol/object-patch.js';
import { publishOrder, STREAM_FRAME_ORDER } from '../../shared/protocol/publish-order.js';
import { topics } from '../../shared/protocol/topics.js';
import { isCompressed, WIRE_DEFLATE } from '../../shared/protocol/wire-compression.js';
import type { Connectivity, SessionOps, Transport } from '../../shared/transport.js';

export interface EdgeHubOptions {
  nodeName: string;
  /** The node's client of the broker (connected as the node, with its token): the hub starts it and closes it. */
  transport: Transport;
  /** Changes every time the edge process starts (envelope epoch, presence). */
  epoch: string;
  bootId: string;
  clock: Clock;
  logger: Logger;
  /** What the edge holds, for the hello [SYNC-9]. */
  holds: () => ObjectRef[];
  /** The lean forms this edge offers in its hello (default: all it knows; [] for none, as an older edge). */
  accepts?: readonly string[];
  /** A compressed hello no `synced` answered within this long goes again uncompressed (default 10 s). */
  helloRetryMs?: number;
}

/** How long a compressed hello may go unanswered before it goes again uncompressed. */
export const HELLO_RETRY_MS = 10_000;

/** The lean forms an edge takes: compressed payloads and patches (docs/protocol.md, "Lean sync"). */
export const EDGE_ACCEPTS: readonly string[] = [WIRE_DEFLATE, WIRE_PATCH];

/**
 * The edge end of the sync protocol (KubeEdge's EdgeHub): validated inbound messages as a
 * stream, stamped outbound messages, presence and hello on every session of its transport.
 */
export class EdgeHub {
  private readonly transport: Transport;
  private readonly stamper: EnvelopeStamper;
  private readonly helloSent = new Subject<string>();
  private malformedCount = 0;
  /** Whether the cloud takes compressed payloads (its `synced` said so, or it sent one); kept across sessions until a cloud says otherwise. */
  private cloudCompresses = false;
  /** The hello of the current session until its `synced` comes, and the timer of its uncompressed retry. */
  private unanswered: { id: string; cancel: Cancel } | undefined;
  private readonly malformedLog: LogSampler;
  readonly inbound$: Observable<DownMessage>;

  constructor(private readonly options: EdgeHubOptions) {
    const { nodeName } = options;
    this.stamper = new EnvelopeStamper(nodeName, options.epoch);
    this.malformedLog = new LogSampler(options.clock);
    this.transport = options.transport;
    const down = topics.down(nodeName);
    this.inbound$ = this.transport.inbound$.pipe(
      filter((p) => p.topic === down),
      map((p) => this.decode(p.payload)),
      filter((m): m is DownMessage => m !== undefined),
      share(), // decode (and count) each payload once, however many subscribe
    );
  }

  get connectivity$(): Observable<Connectivity> {
    return this.transport.connectivity$;
  }

  get connectivity(): Connectivity {
    return this.transport.connectivity;
  }

  /** When the broker was last heard from (ms since the epoch); undefined before its first packet. */
  get lastHeardFromBroker(): number | undefined {
    return this.transport.lastHeard;
  }

  /** Ids of the hellos sent, one per session. */
  get hellos$(): Observable<string> {
    return this.helloSent.asObservable();
  }

  /** Inbound payloads dropped because they failed validation [SYNC-1]. */
  get malformed(): number {
    return this.malformedCount;
  }

  start(): void {
    const { nodeName } = this.options;
    this.transport.start({
      subscriptions: [topics.down(nodeName), topics.streamDown(nodeName)],
      will: { topic: topics.presence(nodeName), payload: this.presence(false) },
      onSession: (session) => this.startSession(session),
    });
  }

  /** Stamps and publishes a message on the up topic; resolves to its id once the broker has it. */
  async send(draft: UpDraft): Promise<string> {
    const message = this.stamp(draft);
    await this.publish(message);
    return message.id;
  }

  /** Gives a draft its envelope (id, seq, sender, epoch) without sending it. */
  stamp(draft: UpDraft): UpMessage {
    return this.stamper.stamp(draft) as UpMessage;
  }

  /** [SYNC-20] Stream frames from the cloud, raw (the stream server validates them). */
  get streamFrames$(): Observable<Buffer> {
    const streamDown = topics.streamDown(this.options.nodeName);
    return this.transport.inbound$.pipe(
      filter((p) => p.topic === streamDown),
      map((p) => p.payload),
    );
  }

  /** [SYNC-20] Publishes a stream frame on the stream-up topic; rejects when not connected. */
  publishStreamFrame(payload: Buffer): Promise<void> {
    return this.transport.publish(topics.streamUp(this.options.nodeName), payload, STREAM_FRAME_ORDER);
  }

  /** Publishes a stamped message; rejects when not connected (the caller re-sends later). */
  publish(message: UpMessage): Promise<void> {
    return this.transport.publish(topics.up(this.options.nodeName), encode(message, this.cloudCompresses), publishOrder(message));
  }

  async stop(): Promise<void> {
    this.unanswered?.cancel();
    this.unanswered = undefined;
    await this.transport.close({ topic: topics.presence(this.options.nodeName), payload: this.presence(false) });
    this.helloSent.complete();
  }

  /** [SYNC-9] subscribed to down: retained presence online, then hello with what the edge holds. */
  private async startSession(session: SessionOps): Promise<void> {
    const { nodeName } = this.options;
    await session.retain({ topic: topics.presence(nodeName), payload: this.presence(true) });
    // The last session's cloud took compressed payloads: so, most likely, does this one (until it says otherwise).
    await this.hello(session, this.cloudCompresses);
  }

  /**
   * [SYNC-9] The hello, compressed if the last session's cloud took that. A cloud that does not
   * (an older one came back) drops it as malformed: unanswered, it goes again uncompressed, and
   * so does everything after it (a status it dropped is sent again, unacked).
   */
  private async hello(session: SessionOps, compress: boolean): Promise<void> {
    const { nodeName, bootId, accepts = EDGE_ACCEPTS } = this.options;
    const offer = accepts.length > 0 ? { accepts: [...accepts] } : {};
    const hello = this.stamper.stamp({ type: 'hello', body: { bootId, holds: this.options.holds(), ...offer } });
    this.unanswered?.cancel();
    this.unanswered = undefined;
    if (compress) {
      const cancel = this.options.clock.setTimer(this.options.helloRetryMs ?? HELLO_RETRY_MS, () => {
        if (this.unanswered?.id !== hello.id) return;
        this.unanswered = undefined;
        this.cloudCompresses = false;
        this.options.logger.info('no answer to a compressed hello; saying it again uncompressed', { id: hello.id });
        this.hello(session, false).catch((err: Error) => this.options.logger.info('could not say hello again', { error: err.message }));
      });
      this.unanswered = { id: hello.id, cancel };
    }
    await session.publish(topics.up(nodeName), encode(hello, compress), publishOrder(hello));
    this.helloSent.next(hello.id);
  }

  private decode(payload: Buffer): DownMessage | undefined {
    const decoded = decodeDown(payload);
    if (decoded.ok) {
      this.learnCloudForms(decoded.message, isCompressed(payload));
      this.options.logger.debug('received', { type: decoded.message.type, id: decoded.message.id, seq: decoded.message.seq });
      return decoded.message;
    }
    // [SYNC-1] dropped, counted and logged (sampled: a flood costs a line per interval); never fatal.
    this.malformedCount++;
    const unlogged = this.malformedLog.sample('malformed');
    if (unlogged !== undefined) this.options.logger.warn('dropped a malformed message', { reason: decoded.reason, bytes: payload.length, ...unloggedFields(unlogged) });
    return undefined;
  }

  /**
   * Whether the cloud takes compressed payloads: its `synced` says so, and a cloud that sends
   * them takes them (so that what goes up during a resync, before its `synced`, is compressed too).
   */
  private learnCloudForms(message: DownMessage, compressed: boolean): void {
    if (message.type === 'synced' && message.parentId === this.unanswered?.id) {
      this.unanswered.cancel();
      this.unanswered = undefined;
    }
    if (!(this.options.accepts ?? EDGE_ACCEPTS).includes(WIRE_DEFLATE)) return;
    if (compressed) this.cloudCompresses = true;
    else if (message.type === 'synced') this.cloudCompresses = (message.body.accepts ?? []).includes(WIRE_DEFLATE);
  }

  private presence(online: boolean): Buffer {
    const p: Presence = { online, epoch: this.options.epoch };
    return encode(p);
  }
}
