import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { SentBodies } from '../../cloud/hub/sent-bodies.js';
import { Sessions } from '../../cloud/hub/sessions.js';
import { EDGE_ACCEPTS } from '../../edge/hub/edge-hub.js';
import { CloudMessageHandler } from '../../edge/metamanager/cloud-message-handler.js';
import { createMemoryCache, refOf, type CachedObject, type LocalCache } from '../../edge/metamanager/local-cache.js';
import type { CacheEvent } from '../../cloud/informer/informer.js';
import type { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { decodeDown, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage, type HelloMessage, type UpDraft } from '../../shared/protocol/envelope.js';
import { canonicalJson } from '../../shared/protocol/object-patch.js';
import type { Pod, PodStatus } from '../../shared/types.js';

export type Rng = () => number;
export const NODE = 'edge-1';
const timing = { resendMinMs: 1_000, resendMaxMs: 4_000 };

/**
 * One cloud session (the hub's NodeSession, real) and one edge (CloudMessageHandler over a
 * memory cache, real), joined by a link the test drives: messages in flight each way, which
 * it delivers in any order, loses or duplicates. Down messages cross the codec as the wire
 * has them (compressed for a lean edge). `lean`: the edge offers the lean forms, and the hub
 * keeps the bodies it sent as bases for patches (only a few, so that some go whole).
 */
export class SyncPipeline {
  readonly cache: LocalCache = createMemoryCache();
  readonly sessions: Sessions;
  readonly handler: CloudMessageHandler;
  /** What went down, by form: `patch`, `apply`, `apply keepStatus`, `patch keepStatus`, and `compressed` payloads. */
  readonly forms = new Map<string, number>();
  private down: Buffer[] = [];
  private up: UpDraft[] = [];
  private readonly edgeStampers: EnvelopeStamper[] = [];
  private epoch = 0;

  constructor(
    readonly lean: boolean,
    clock: FakeClock,
  ) {
    const cloud = new EnvelopeStamper('cloud', lean ? 'lean' : 'full');
    const put = (m: DownMessage): void => {
      const payload = encode(m, this.lean && this.sessions.get(NODE).lean.compresses);
      if (m.type === 'apply' || m.type === 'patch') this.count(`${m.type}${m.keepStatus ? ' keepStatus' : ''}`);
      if (payload[0] === 0) this.count('compressed');
      this.down.push(payload);
    };
    this.sessions = new Sessions({
      clock,
      timing,
      ledger: new MemoryAckLedger(),
      transport: { send: (_node, draft) => { const m = cloud.stamp(draft) as DownMessage; put(m); return m; }, resend: (_node, m) => put(m) },
      ...(lean ? { sentBodies: new SentBodies(6) } : {}),
    });
    this.handler = new CloudMessageHandler({ cache: this.cache, send: async (draft) => (this.up.push(draft), 'id'), logger: silentLogger, onAck: () => {}, onLogRequest: async () => {} });
  }

  get inFlight(): number {
    return this.down.length + this.up.length;
  }

  get pending(): number {
    return this.sessions.get(NODE).pending;
  }

  podEvent(event: CacheEvent<Pod>): void {
    this.sessions.onPodEvent(event);
  }

  /** A new session: what was in flight is lost (acks too), then the edge says hello with what it holds. */
  reconnect(): void {
    this.down = [];
    this.up = [];
    const session = this.sessions.get(NODE);
    if (this.epoch > 0) session.offline(`e${this.epoch}`);
    const stamper = new EnvelopeStamper(NODE, `e${++this.epoch}`);
    this.edgeStampers.push(stamper);
    const offer = this.lean ? { accepts: [...EDGE_ACCEPTS] } : {};
    session.hello(stamper.stamp({ type: 'hello', body: { bootId: 'b', holds: this.cache.objects().map(refOf), ...offer } }) as HelloMessage);
  }

  /**
   * Delivers up to `count` messages each way, picked at random; each is lost with `loss`, doubled
   * with `dup`. `downOnly`: the edge's answers stay in flight (so the hub's ledger lags the edge).
   */
  async deliver(rng: Rng, count: number, loss = 0, dup = 0, downOnly = false): Promise<void> {
    for (let i = 0; i < count && (downOnly ? this.down.length : this.inFlight) > 0; i++) {
      const downward = downOnly || this.up.length === 0 || (this.down.length > 0 && rng() < 0.6);
      const queue: unknown[] = downward ? this.down : this.up;
      const [item] = queue.splice(Math.floor(rng() * queue.length), 1);
      if (rng() < loss) continue;
      if (rng() < dup) queue.push(item);
      if (downward) await this.toEdge(item as Buffer);
      else this.toCloud(item as UpDraft);
    }
  }

  /** The edge reports a status of its own for a pod it holds; the hub hears of it when `heard`. */
  report(uid: string, status: PodStatus, now: number, heard: boolean): void {
    const held = this.cache.objects().find((o) => o.uid === uid);
    if (held?.kind !== 'Pod') return;
    this.cache.queueStatus(refOf(held), status, now);
    if (heard) this.sessions.get(NODE).lean.statusReported(uid);
  }

  /** What the edge holds, in a form two stores compare by (key order aside). */
  store(): string[] {
    return [...this.cache.objects()].sort((a, b) => a.uid.localeCompare(b.uid)).map((o: Readonly<CachedObject>) => canonicalJson(o));
  }

  private count(form: string): void {
    this.forms.set(form, (this.forms.get(form) ?? 0) + 1);
  }

  close(): void {
    this.sessions.close();
    this.handler.stop();
  }

  private async toEdge(payload: Buffer): Promise<void> {
    const decoded = decodeDown(payload);
    if (!decoded.ok) throw new Error(`the edge could not decode a down message: ${decoded.reason}`);
    await this.handler.handle(decoded.message);
  }

  private toCloud(draft: UpDraft): void {
    const session = this.sessions.get(NODE);
    if (draft.type === 'ack') session.ack(draft.parentId);
    else if (draft.type === 'nack') session.nack(draft.parentId);
  }
}
