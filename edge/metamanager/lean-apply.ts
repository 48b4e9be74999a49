import type { ApplyMessage, PatchMessage } from '../../shared/protocol/envelope.js';
import { applyMergePatch, syncedDigest, withoutStatus } from '../../shared/protocol/object-patch.js';
import { syncedBodyProblem, type SyncedObject } from '../../shared/protocol/synced-objects.js';
import { isNewerVersion } from './apply-rule.js';
import type { CachedObject } from './local-cache.js';

export type Rebuilt = { ok: true; body: SyncedObject } | { ok: false; reason: string };

const refuse = (reason: string): Rebuilt => ({ ok: false, reason });

/**
 * [SYNC-26][SYNC-27] The object an `apply` or a `patch` means, given what the cache holds under its name (lean
 * sync, docs/protocol.md): a patch only on the very version it names as its base, of the same
 * uid, and only if the result has the digest the cloud computed; an apply or patch that keeps
 * the status only for a pod whose status this edge owns (it reported one). A version not newer
 * than the one held means the held object (which the cache then ignores). Anything else is
 * refused, and the cloud sends the whole object. Pure.
 */
export function rebuild(message: ApplyMessage | PatchMessage, held: Readonly<CachedObject> | undefined): Rebuilt {
  const { ref } = message;
  const same = held !== undefined && held.uid === ref.uid && held.kind === ref.kind;
  // A late copy of what the edge holds already (its ack was lost): ignored and acked as any such apply [SYNC-6].
  if (same && !isNewerVersion(ref.resourceVersion, held.resourceVersion)) return { ok: true, body: held.object };
  if (message.keepStatus && !(same && held.kind === 'Pod' && held.statusVersion !== undefined)) return refuse('no status of its own to keep for this pod');
  if (message.type === 'apply') return { ok: true, body: message.body };
  if (!same) return refuse(`does not hold ${ref.kind} ${ref.uid}, the patch's base`);
  if (held.resourceVersion !== message.base) return refuse(`holds version ${held.resourceVersion ?? '(none)'}, the patch is against ${message.base}`);
  const base = message.keepStatus ? withoutStatus(held.object) : held.object;
  const body = applyMergePatch(base, message.body) as SyncedObject;
  if (syncedDigest(ref.kind, body) !== message.digest) return refuse('the patched object is not the one the cloud meant (digest)');
  const problem = syncedBodyProblem(ref, body);
  return problem ? refuse(problem) : { ok: true, body };
}
