import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { nodeNameOf } from '../auth/node-authz.js';
import { stableJson } from '../../client/object-meta.js';
import type { AdmissionContext, ResourceDef } from '../kinds/registry.js';

/** What a node may not change in an Event it updates or patches. */
const KEPT = ['involvedObject', 'source', 'reportingComponent', 'reportingInstance'] as const;

/**
 * kedge's NodeRestriction for Events (kube has none): a node's update or patch of an Event
 * keeps what the Event is about and who reported it, so that the Node authorizer's check of
 * the stored Event (node-events.ts) holds for the written one too: a node counts its own
 * Events, it cannot turn one into an Event about another object. Requests from anyone but a
 * node pass.
 */
export function restrictNodeEventWrites(def: ResourceDef, obj: KubeObject, ctx: AdmissionContext): void {
  if (def.group !== '' || def.resource !== 'events' || ctx.operation !== 'update') return;
  const node = ctx.user && nodeNameOf(ctx.user);
  if (node === undefined) return;
  const old = (ctx.old ?? { metadata: {} }) as unknown as Record<string, unknown>;
  const next = obj as unknown as Record<string, unknown>;
  const changed = KEPT.filter((field) => stableJson(next[field] ?? null) !== stableJson(old[field] ?? null));
  if (changed.length === 0) return;
  const name = obj.metadata.name ?? '';
  throw new KedgeError('Forbidden', `events "${name}" is forbidden: node "${node}" is not allowed to modify ${changed.join(', ')}`, { details: { name, group: '', kind: 'events' } });
}
