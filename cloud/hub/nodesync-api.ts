import { isKedgeError } from '../../shared/errors.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { ApiClient, ResourceRef } from '../client/client.js';
import { NODESYNC_GROUP, type AckedObject, type NodeSync } from '../client/nodesync.js';

/** What the ledger knows of a node's NodeSync object: whether it exists, at which version. */
export interface Saved {
  exists: boolean;
  rv?: string;
}

export interface WriteCounts {
  writes: number;
  conflicts: number;
}

export const NODESYNCS: ResourceRef = { resource: 'nodesyncs', group: NODESYNC_GROUP };
const CONFLICT_RETRIES = 5;

/** Every NodeSync, as node → (uid → ref) plus its resourceVersion. */
export async function loadNodeSyncs(api: ApiClient): Promise<Map<string, { objects: Map<string, ObjectRef>; rv?: string }>> {
  const list = await api.list<NodeSync>(NODESYNCS);
  return new Map(
    list.items.map((item) => [
      item.metadata.name!,
      { objects: new Map(Object.entries(item.status?.objects ?? {}).map(([uid, o]) => [uid, { ...o, uid }])), rv: item.metadata.resourceVersion },
    ]),
  );
}

/**
 * Makes node's NodeSync hold `objects` (undefined: deletes it), starting from what we know
 * (`saved`); returns what we know afterwards. The hub is the only writer, so a Conflict
 * means only "re-read the resourceVersion and write our view again".
 */
export async function saveNodeSync(
  api: ApiClient,
  node: string,
  objects: ReadonlyMap<string, ObjectRef> | undefined,
  saved: Saved,
  counts: WriteCounts,
): Promise<Saved> {
  const ref = { ...NODESYNCS, name: node };
  if (!objects) {
    if (saved.exists) {
      await api.delete(ref).catch((err: unknown) => ignore(err, 'NotFound'));
      counts.writes++;
    }
    return { exists: false };
  }
  const body = (rv: string | undefined): NodeSync => ({
    apiVersion: `${NODESYNC_GROUP}/v1`,
    kind: 'NodeSync',
    metadata: rv === undefined ? { name: node } : { name: node, resourceVersion: rv },
    status: { objects: Object.fromEntries([...objects].map(([uid, r]) => [uid, acked(r)])) },
  });
  let rv = saved.rv;
  if (!saved.exists) {
    if (objects.size === 0) return saved; // nothing worth remembering yet
    try {
      const created = await api.create<NodeSync>(NODESYNCS, body(undefined));
      counts.writes++;
      return { exists: true, rv: created.metadata.resourceVersion };
    } catch (err) {
      ignore(err, 'AlreadyExists');
      rv = (await api.get<NodeSync>(ref)).metadata.resourceVersion;
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const updated = await api.replace<NodeSync>({ ...ref, subresource: 'status' }, body(rv));
      counts.writes++;
      return { exists: true, rv: updated.metadata.resourceVersion };
    } catch (err) {
      // Deleted behind our back: create it again.
      if (isKedgeError(err, 'NotFound')) return saveNodeSync(api, node, objects, { exists: false }, counts);
      if (!isKedgeError(err, 'Conflict') || attempt >= CONFLICT_RETRIES) throw err;
      counts.conflicts++;
      rv = (await api.get<NodeSync>(ref)).metadata.resourceVersion;
    }
  }
}

function acked(ref: ObjectRef): AckedObject {
  const { kind, namespace, name, resourceVersion } = ref;
  return { kind, name, ...(namespace === undefined ? {} : { namespace }), ...(resourceVersion === undefined ? {} : { resourceVersion }) };
}

function ignore(err: unknown, code: 'NotFound' | 'AlreadyExists'): void {
  if (!isKedgeError(err, code)) throw err;
}
