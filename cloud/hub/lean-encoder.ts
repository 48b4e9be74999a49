import type { ApplyMessage, ObjectRef, PatchMessage } from '../../shared/protocol/envelope.js';
import { mergePatchBetween, syncedDigest, WIRE_PATCH, withoutStatus } from '../../shared/protocol/object-patch.js';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';

type ApplyDraft = Omit<ApplyMessage, 'v' | 'id' | 'seq' | 'sender' | 'epoch'>;
type PatchDraft = Omit<PatchMessage, 'v' | 'id' | 'seq' | 'sender' | 'epoch'>;

/** What the hub knows of one node and one object when it sends the object's newest version. */
export interface LeanContext {
  /** The lean forms the node said it takes in its hello. */
  accepts: ReadonlySet<string>;
  /** The version the ledger says the node acknowledged, and its body as the hub sent it (if still kept). */
  base?: { ref: ObjectRef; body: SyncedObject };
  /** The node reported a status of its own for this pod uid, which it keeps [SYNC-12]. */
  statusOwned: boolean;
  /** The node refused a lean form for this uid since its last ack: send it whole, status and all. */
  wholeOnly: boolean;
}

/**
 * [SYNC-25][SYNC-27] The lean form of an apply (docs/protocol.md, "Lean sync"), as a pure function: the
 * object as a merge patch against the version the node acknowledged, when the hub still has
 * that version's body; a pod without its status when the node owns it; else the apply as it is.
 */
export function leanApply(draft: ApplyDraft, context: LeanContext): ApplyDraft | PatchDraft {
  if (!context.accepts.has(WIRE_PATCH) || context.wholeOnly) return draft;
  const keepStatus = draft.ref.kind === 'Pod' && context.statusOwned;
  const view = (body: SyncedObject): SyncedObject => (keepStatus ? withoutStatus(body) : body);
  const target = view(draft.body);
  const lean = keepStatus ? { keepStatus: true } : {};
  const base = context.base;
  if (base && base.ref.uid === draft.ref.uid && base.ref.resourceVersion !== undefined) {
    const body = mergePatchBetween(view(base.body) as object as Record<string, unknown>, target as object as Record<string, unknown>);
    if (body) return { type: 'patch', ref: draft.ref, base: base.ref.resourceVersion, body, digest: syncedDigest(draft.ref.kind, target), ...lean };
  }
  return { ...draft, body: target, ...lean };
}
