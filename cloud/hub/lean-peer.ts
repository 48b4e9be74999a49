import type { DownDraft, HelloMessage } from '../../shared/protocol/envelope.js';
import { WIRE_DEFLATE } from '../../shared/protocol/wire-compression.js';
import type { AckLedger } from './ack-ledger.js';
import { leanApply } from './lean-encoder.js';
import type { ObjectDraft } from './node-outbox.js';
import type { SentBodies } from './sent-bodies.js';

const NONE: ReadonlySet<string> = new Set();

/** The lean forms the cloud takes from an edge (said in its `synced`). */
export const CLOUD_ACCEPTS: readonly string[] = [WIRE_DEFLATE];

/**
 * [SYNC-23] What the hub knows of one node for the lean sync (docs/protocol.md, "Lean sync"): the forms
 * it takes (from its hello), the pods whose status it owns (it reported one), and the objects
 * it refused a lean form of since their last ack. Turns an outbox's apply into its lean form.
 */
export class LeanPeer {
  private accepts: ReadonlySet<string> = NONE;
  private readonly statusOwned = new Set<string>();
  private readonly wholeOnly = new Set<string>();

  constructor(
    private readonly node: string,
    private readonly ledger: AckLedger,
    private readonly sentBodies: SentBodies | undefined,
  ) {}

  /** Whether the node takes the compressed form. */
  get compresses(): boolean {
    return this.accepts.has(WIRE_DEFLATE);
  }

  /** A hello: what the node takes now; it owns the status only of the pods it still holds. */
  hello(message: HelloMessage): void {
    this.accepts = new Set(message.body.accepts ?? []);
    this.wholeOnly.clear();
    const held = new Set(message.body.holds.map((ref) => ref.uid));
    for (const uid of this.statusOwned) if (!held.has(uid)) this.statusOwned.delete(uid);
  }

  /** The node answers on a session no hello opened [SYNC-14]: nothing is known of what it takes. */
  unknown(): void {
    this.accepts = NONE;
  }

  /** What the `synced` answer to a hello adds: the forms the cloud takes, for an edge that offered some. */
  syncedAccepts(): { accepts?: string[] } {
    return this.accepts.size > 0 ? { accepts: [...CLOUD_ACCEPTS] } : {};
  }

  statusReported(uid: string): void {
    this.statusOwned.add(uid);
  }

  /** The node refused a lean form of `uid`: it goes whole until acked. */
  refused(uid: string): void {
    this.wholeOnly.add(uid);
  }

  acked(uid: string): void {
    this.wholeOnly.delete(uid);
  }

  /** The node no longer holds `uid`. */
  forget(uid: string): void {
    this.statusOwned.delete(uid);
    this.wholeOnly.delete(uid);
  }

  /** The form in which an outbox's draft goes out; the body of every apply is kept as a base for later patches. */
  draft(draft: ObjectDraft): DownDraft {
    if (draft.type !== 'apply') return draft;
    const { uid } = draft.ref;
    const acked = this.ledger.get(this.node, uid);
    const body = acked && this.sentBodies?.get(uid, acked.resourceVersion); // before the new version may push it out
    this.sentBodies?.remember(draft.ref, draft.body);
    return leanApply(draft, { accepts: this.accepts, base: acked && body ? { ref: acked, body } : undefined, statusOwned: this.statusOwned.has(uid), wholeOnly: this.wholeOnly.has(uid) });
  }
}
