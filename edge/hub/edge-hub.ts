import { filter, map, share, Subject, type Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { LogSampler, unloggedFields } from '../../shared/log-sampler.js';
import { decodeDown, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage, type ObjectRef, type Presence, type UpDraft, type UpMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
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
}

/**
 * The edge end of the sync protocol (KubeEdge's EdgeHub): validated inbound messages as a
 * stream, stamped outbound messages, presence and hello on every session of its transport.
 */
export class EdgeHub {
  private readonly transport: Transport;
  private readonly stamper: EnvelopeStamper;
  private readonly helloSent = new Subject<string>();
  private malformedCount = 0;
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
    return this.transport.publish(topics.streamUp(this.options.nodeName), payload);
  }

  /** Publishes a stamped message; rejects when not connected (the caller re-sends later). */
  publish(message: UpMessage): Promise<void> {
    return this.transport.publish(topics.up(this.options.nodeName), encode(message));
  }

  async stop(): Promise<void> {
    await this.transport.close({ topic: topics.presence(this.options.nodeName), payload: this.presence(false) });
    this.helloSent.complete();
  }

  /** [SYNC-9] subscribed to down: retained presence online, then hello with what the edge holds. */
  private async startSession(session: SessionOps): Promise<void> {
    const { nodeName, bootId } = this.options;
    await session.retain({ topic: topics.presence(nodeName), payload: this.presence(true) });
    const hello = this.stamper.stamp({ type: 'hello', body: { bootId, holds: this.options.holds() } });
    await session.publish(topics.up(nodeName), encode(hello));
    this.helloSent.next(hello.id);
  }

  private decode(payload: Buffer): DownMessage | undefined {
    const decoded = decodeDown(payload);
    if (decoded.ok) {
      this.options.logger.debug('received', { type: decoded.message.type, id: decoded.message.id, seq: decoded.message.seq });
      return decoded.message;
    }
    // [SYNC-1] dropped, counted and logged (sampled: a flood costs a line per interval); never fatal.
    this.malformedCount++;
    const unlogged = this.malformedLog.sample('malformed');
    if (unlogged !== undefined) this.options.logger.warn('dropped a malformed message', { reason: decoded.reason, bytes: payload.length, ...unloggedFields(unlogged) });
    return undefined;
  }

  private presence(online: boolean): Buffer {
    const p: Presence = { online, epoch: this.options.epoch };
    return encode(p);
  }
}
