import type { Node } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import { sameSyncedNode, trimNode } from './network-objects.js';
import type { ReferenceAction } from './reference-index.js';
import { desiredOf, type Desired } from './resync.js';

/**
 * [SYNC-19] Each node holds its own Node (never another's), trimmed to its name, uid, labels and
 * spec (its podCIDR). A Node changes every heartbeat (its status): the version a node is to hold
 * moves only when its labels or spec change, so heartbeats send nothing, and a hello sends the
 * Node only when the edge holds an older labels-or-spec version (or, after a cloud restart, once:
 * the first version this hub saw). A plan only, O(1) per event.
 */
export class OwnNodes {
  /** node name → the version of its Node it is to hold. */
  private readonly wanted = new Map<string, Desired>();

  onNodeEvent(event: CacheEvent<Node>): ReferenceAction[] {
    if (event.type === 'SYNCED') return [];
    const node = event.object.metadata.name ?? '';
    const before = this.wanted.get(node);
    if (event.type === 'DELETED') {
      if (!before || before.ref.uid !== event.object.metadata.uid) return [];
      this.wanted.delete(node);
      return [{ type: 'unwant', node, uid: before.ref.uid }];
    }
    const sameLife = before?.ref.uid === event.object.metadata.uid;
    if (before && sameLife && sameSyncedNode(before.object as Node, event.object)) return [];
    const now = desiredOf('Node', trimNode(event.object));
    this.wanted.set(node, now);
    const want: ReferenceAction = { type: 'want', node, object: now };
    return before && !sameLife ? [{ type: 'unwant', node, uid: before.ref.uid }, want] : [want];
  }
}
