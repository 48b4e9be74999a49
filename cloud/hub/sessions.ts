import type { Pod } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import { NodeSession, type SessionDeps } from './node-session.js';
import type { ReferenceAction } from './reference-index.js';

/**
 * Whether two versions of a pod differ in nothing the edge needs: status, resourceVersion, and
 * managedFields (which never go down, and which every status write touches).
 */
export function onlyStatusChanged(before: Pod, after: Pod): boolean {
  const desired = (p: Pod): string => JSON.stringify([{ ...p.metadata, resourceVersion: undefined, managedFields: undefined }, p.spec]);
  return desired(before) === desired(after);
}

/**
 * One NodeSession per node name, created on first need (a hello, a resume, a pod bound to
 * it); routes pod changes to them. The session of a node that is gone (not connected, no
 * Node, no pod bound to it) is forgotten: it holds nothing a restarted hub would have.
 */
export class Sessions {
  private readonly byNode = new Map<string, NodeSession>();

  /** `hasNode`: whether the Node exists (from the hub's node cache). */
  constructor(
    private readonly deps: SessionDeps,
    private readonly hasNode: (node: string) => boolean = () => true,
  ) {}

  get(node: string): NodeSession {
    let session = this.byNode.get(node);
    if (!session) this.byNode.set(node, (session = new NodeSession(node, this.deps)));
    return session;
  }

  /** The node's session, without making one. */
  find(node: string): NodeSession | undefined {
    return this.byNode.get(node);
  }

  /** Forgets the node's session if the node is gone: not connected, no Node and no pod bound to it. */
  forgetIfGone(node: string): void {
    const session = this.byNode.get(node);
    if (!session || session.connected || session.desired.size > 0 || this.hasNode(node)) return;
    session.close();
    this.byNode.delete(node);
  }

  get size(): number {
    return this.byNode.size;
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
      if (node) this.podGone(node, uid);
      return;
    }
    const oldNode = event.type === 'MODIFIED' ? event.old.spec.nodeName : undefined;
    if (oldNode && oldNode !== node) this.podGone(oldNode, uid);
    // The edge owns status: a change of status alone (usually the edge's own report) is not sent back.
    if (event.type === 'MODIFIED' && oldNode === node && onlyStatusChanged(event.old, event.object)) {
      if (node) this.get(node).statusChanged(event.object);
      return;
    }
    if (node) this.get(node).podBound(event.object);
  }

  /** [SYNC-18] What the reference index planned: referenced objects wanted by, or no longer wanted by, nodes. */
  onReferences(actions: readonly ReferenceAction[]): void {
    for (const action of actions) {
      if (action.type === 'want') this.get(action.node).want(action.object);
      else {
        this.byNode.get(action.node)?.unwant(action.uid);
        this.forgetIfGone(action.node);
      }
    }
  }

  /** The hub lost the broker: no node is connected until its next hello [SYNC-4]. */
  disconnectAll(): void {
    for (const [node, session] of this.byNode) {
      session.close();
      this.forgetIfGone(node);
    }
  }

  /** A node without a session holds nothing the hub knows of: no tombstone to send. */
  private podGone(node: string, uid: string): void {
    this.byNode.get(node)?.podGone(uid);
    this.forgetIfGone(node);
  }

  close(): void {
    this.disconnectAll();
  }
}
