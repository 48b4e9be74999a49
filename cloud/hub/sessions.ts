import type { Pod } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import { NodeSession, type SessionDeps } from './node-session.js';

/** Whether two versions of a pod differ in nothing the edge needs (status and resourceVersion). */
export function onlyStatusChanged(before: Pod, after: Pod): boolean {
  const desired = (p: Pod): string => JSON.stringify([{ ...p.metadata, resourceVersion: undefined }, p.spec]);
  return desired(before) === desired(after);
}

/** One NodeSession per node name, created on first need; routes pod changes to them. */
export class Sessions {
  private readonly byNode = new Map<string, NodeSession>();

  constructor(private readonly deps: SessionDeps) {}

  get(node: string): NodeSession {
    let session = this.byNode.get(node);
    if (!session) this.byNode.set(node, (session = new NodeSession(node, this.deps)));
    return session;
  }

  connected(): string[] {
    return [...this.byNode.values()].filter((s) => s.connected).map((s) => s.node).sort();
  }

  /**
   * [SYNC-2][SYNC-3] A pod belongs to the node in its spec.nodeName. A pod deleted, or bound
   * to another node, is gone from its old node (which gets a tombstone if it may hold it).
   */
  onPodEvent(event: CacheEvent<Pod>): void {
    if (event.type === 'SYNCED') return;
    const uid = event.object.metadata.uid;
    if (!uid) return;
    const node = event.object.spec.nodeName;
    if (event.type === 'DELETED') {
      if (node) this.get(node).podGone(uid);
      return;
    }
    const oldNode = event.type === 'MODIFIED' ? event.old.spec.nodeName : undefined;
    if (oldNode && oldNode !== node) this.get(oldNode).podGone(uid);
    // The edge owns status: a change of status alone (usually the edge's own report) is not sent back.
    if (event.type === 'MODIFIED' && oldNode === node && onlyStatusChanged(event.old, event.object)) {
      if (node) this.get(node).statusChanged(event.object);
      return;
    }
    if (node) this.get(node).podBound(event.object);
  }

  /** The hub lost the broker: no node is connected until its next hello [SYNC-4]. */
  disconnectAll(): void {
    for (const session of this.byNode.values()) session.close();
  }

  close(): void {
    this.disconnectAll();
  }
}
