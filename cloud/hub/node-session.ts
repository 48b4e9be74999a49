import type { Clock } from '../../shared/clock.js';
import type { HelloMessage, ObjectRef } from '../../shared/protocol/envelope.js';
import type { Timing } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import type { AckLedger } from './ack-ledger.js';
import { LeanPeer } from './lean-peer.js';
import { NodeOutbox, type SessionTransport } from './node-outbox.js';
import type { SentBodies } from './sent-bodies.js';
import { desiredOf, isNewer, planResync, type Desired, type ResyncPlan } from './resync.js';

export interface SessionDeps {
  clock: Clock;
  timing: Pick<Timing, 'resendMinMs' | 'resendMaxMs'>;
  ledger: AckLedger;
  transport: SessionTransport;
  /**
   * A pod deleted in the cloud while its node was away (evicted, say) was stopped by the edge
   * only now: it ran from `deletedAt` until now beside any replacement.
   */
  onStaleStopped?(node: string, ref: ObjectRef, deletedAt: number): void;
  /** The bodies sent, as bases for the lean sync's patches (none: objects go whole). */
  sentBodies?: SentBodies;
}

/**
 * The cloud's view of one node (KubeEdge's per-node message pool): the pods it should hold,
 * what it holds (the ack ledger), and what must go down to it for the two to meet, in a
 * coalescing outbox keyed by uid [SYNC-3] whose entries stay until acked (node-outbox.ts).
 */
export class NodeSession {
  /** What this node should hold, by uid: the pods bound to it and what they reference [SYNC-2][SYNC-18]. */
  readonly desired = new Map<string, Desired>();
  /** Pods whose Ready the node controller set to False [SYNC-15]. */
  private readonly markedNotReady = new Set<string>();
  private readonly outbox: NodeOutbox;
  private epoch: string | undefined;
  /** When the node was last seen going offline (undefined: never connected while we ran). */
  offlineSince: number | undefined;
  /** uid → when the cloud deleted a pod this node held while it was away. */
  private readonly goneWhileAway = new Map<string, number>();
  /** What the lean sync knows of the node: the forms it takes, whose status it owns [docs/protocol.md, Lean sync]. */
  readonly lean: LeanPeer;

  constructor(
    readonly node: string,
    private readonly deps: SessionDeps,
  ) {
    const { clock, timing, transport } = deps;
    this.lean = new LeanPeer(node, deps.ledger, deps.sentBodies);
    const lean: SessionTransport = { send: (to, draft) => transport.send(to, draft.type === 'apply' || draft.type === 'delete' ? this.lean.draft(draft) : draft), resend: (to, m) => transport.resend(to, m) };
    this.outbox = new NodeOutbox({ node, clock, timing, transport: lean, connected: () => this.connected });
  }

  /** Connected between a hello and the presence offline of the same epoch [SYNC-4]. */
  get connected(): boolean {
    return this.epoch !== undefined;
  }

  get pending(): number {
    return this.outbox.size;
  }

  /** Transmissions whose ack would still count: at most two per pending uid. */
  get awaitingAck(): number {
    return this.outbox.awaitingAck;
  }

  podBound(pod: Pod): void {
    const uid = pod.metadata.uid;
    if (!uid) return;
    if (pod.metadata.deletionTimestamp !== undefined) this.noteGoneWhileAway(uid);
    this.statusChanged(pod);
    this.desired.set(uid, desiredOf('Pod', pod));
    this.reconcile(uid);
  }

  /** [SYNC-18] A ConfigMap, Secret, claim or volume one of the node's pods needs, in its newest version. */
  want(object: Desired): void {
    this.desired.set(object.ref.uid, object);
    this.reconcile(object.ref.uid);
  }

  /** [SYNC-18] No pod of the node references the object any more (or it is gone): a tombstone if the node may hold it. */
  unwant(uid: string): void {
    if (!this.desired.delete(uid)) return;
    this.reconcile(uid);
  }

  podGone(uid: string): void {
    this.markedNotReady.delete(uid);
    this.lean.forget(uid);
    const deletedAt = this.goneWhileAway.get(uid);
    if (this.connected && deletedAt !== undefined) {
      // Deleted gracefully while away, removed now that the edge stopped it.
      this.goneWhileAway.delete(uid);
      const pod = this.desired.get(uid);
      if (pod) this.deps.onStaleStopped?.(this.node, pod.ref, deletedAt);
    } else this.noteGoneWhileAway(uid);
    this.desired.delete(uid);
    this.reconcile(uid);
  }

  /** A pod this node holds is deleted while the node is away: the edge keeps running it until it is back. */
  private noteGoneWhileAway(uid: string): void {
    if (!this.connected && this.deps.ledger.get(this.node, uid) && !this.goneWhileAway.has(uid)) this.goneWhileAway.set(uid, this.deps.clock.now());
  }

  /** [SYNC-10] Answers a hello with exactly the difference, then `synced`. Holds become the ledger. */
  hello(message: HelloMessage): ResyncPlan {
    this.outbox.clear();
    this.epoch = message.epoch;
    this.lean.hello(message);
    this.deps.ledger.reset(this.node, message.body.holds);
    const plan = planResync(this.desired.values(), message.body.holds);
    const held = new Set(message.body.holds.map((ref) => ref.uid));
    for (const uid of this.goneWhileAway.keys()) if (!held.has(uid)) this.goneWhileAway.delete(uid);
    for (const ref of plan.deletes) this.outbox.put({ type: 'delete', ref });
    for (const want of plan.applies) this.outbox.put({ type: 'apply', ref: want.ref, body: want.object });
    this.deps.transport.send(this.node, {
      type: 'synced',
      parentId: message.id,
      body: { applies: plan.applies.length, deletes: plan.deletes.length, ...(this.markedNotReady.size > 0 ? { resendStatuses: true } : {}), ...this.lean.syncedAccepts() },
    });
    return plan;
  }

  /**
   * [SYNC-14] The node was online before the hub subscribed (an external broker keeps edges
   * connected while the hub is away), so no hello of its epoch was heard. Until its next
   * hello, the ledger stands for what it holds: every wanted pod the ledger lacks or holds
   * stale goes down, every unwanted uid it holds gets a tombstone, and whatever was pending
   * goes out again. False when a session is already connected.
   */
  resume(epoch: string): boolean {
    if (this.connected) return false;
    this.epoch = epoch;
    this.lean.unknown();
    const uids = new Set([...this.desired.keys(), ...this.deps.ledger.held(this.node).keys(), ...this.outbox.uids()]);
    for (const uid of uids) {
      const before = this.outbox.get(uid);
      this.reconcile(uid);
      const pending = this.outbox.get(uid);
      if (pending && pending === before) this.outbox.send(uid);
    }
    return true;
  }

  /**
   * [SYNC-15] A status written by someone: notes whether the node controller marked the pod not
   * ready (Ready=False beside ContainersReady=True, which the edge never reports: it sets both
   * alike). Not sent down: the edge owns status.
   */
  statusChanged(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    const status = (type: string): string | undefined => pod.status?.conditions?.find((c) => c.type === type)?.status;
    if (status('Ready') === 'False' && status('ContainersReady') === 'True') this.markedNotReady.add(uid);
    else this.markedNotReady.delete(uid);
  }

  /** The node's presence went offline. Ignored unless it is the epoch that said hello. */
  offline(epoch: string): boolean {
    if (epoch !== this.epoch) return false;
    this.close();
    return true;
  }

  /** [SYNC-5] Records an ack in the ledger; false if it answers nothing we sent. */
  ack(parentId: string): boolean {
    const acked = this.outbox.acked(parentId);
    if (!acked) return false;
    const { ledger } = this.deps;
    const uid = acked.ref.uid;
    const recorded = ledger.get(this.node, uid);
    this.lean.acked(uid);
    if (acked.type === 'delete') {
      ledger.forget(this.node, uid);
      this.lean.forget(uid);
      const deletedAt = this.goneWhileAway.get(uid);
      this.goneWhileAway.delete(uid);
      if (deletedAt !== undefined) this.deps.onStaleStopped?.(this.node, acked.ref, deletedAt);
    } else if (!recorded || isNewer(acked.ref.resourceVersion, recorded.resourceVersion)) ledger.record(this.node, acked.ref);
    this.reconcile(uid);
    return true;
  }

  /**
   * Lean sync: the node refused the lean form `parentId` (it lacks the base, or its result is not
   * the one meant): the object goes again, whole. False if it answers nothing we still await.
   */
  nack(parentId: string): boolean {
    const refused = this.outbox.refused(parentId);
    if (!refused) return false;
    this.lean.refused(refused.uid);
    if (refused.current && this.connected) this.outbox.send(refused.uid); // else its next hello sends it
    return true;
  }

  close(): void {
    if (this.epoch !== undefined) this.offlineSince = this.deps.clock.now();
    this.epoch = undefined;
    this.outbox.stop();
  }

  /** Level-triggered: what must be pending for this uid, given desired, ledger and outbox. */
  private reconcile(uid: string): void {
    const want = this.desired.get(uid);
    const pending = this.outbox.get(uid);
    const have = this.deps.ledger.get(this.node, uid);
    if (want) {
      const rv = want.ref.resourceVersion;
      const ahead = pending ? pending.draft.type === 'apply' && !isNewer(rv, pending.ref.resourceVersion) : have && !isNewer(rv, have.resourceVersion);
      if (!ahead) this.outbox.put({ type: 'apply', ref: want.ref, body: want.object });
      return;
    }
    if (pending?.draft.type === 'delete') return;
    if (pending && !pending.sent && !have) this.outbox.settle(uid); // never left the cloud
    else if (pending || have) this.outbox.put({ type: 'delete', ref: tombstoneRef((pending?.ref ?? have)!) });
  }
}

function tombstoneRef(ref: ObjectRef): ObjectRef {
  const { kind, namespace, name, uid } = ref;
  return namespace === undefined ? { kind, name, uid } : { kind, namespace, name, uid };
}
