import type { ObjectRef } from '../../shared/protocol/envelope.js';

/**
 * Per node, per object uid: the last version the edge acknowledged (KubeEdge's ObjectSync)
 * [SYNC-2]. Reads are synchronous; a durable implementation keeps a copy in memory and
 * writes behind to the store, so the hub's bookkeeping never waits on I/O.
 */
export interface AckLedger {
  /** Everything the node is known to hold, by uid. */
  held(node: string): ReadonlyMap<string, ObjectRef>;
  get(node: string, uid: string): ObjectRef | undefined;
  /** The edge acknowledged this version [SYNC-5]. */
  record(node: string, ref: ObjectRef): void;
  /** The edge acknowledged a tombstone [SYNC-5]. */
  forget(node: string, uid: string): void;
  /** The edge said what it holds in its hello [SYNC-10]. */
  reset(node: string, refs: readonly ObjectRef[]): void;
  /** Nodes with a ledger. */
  nodes(): string[];
  /** The node was deleted: forget its ledger. */
  drop(node: string): void;
}

const EMPTY: ReadonlyMap<string, ObjectRef> = new Map();

/** The in-memory ledger: forgets everything when the cloud restarts (edges re-hello anyway). */
export class MemoryAckLedger implements AckLedger {
  private readonly byNode = new Map<string, Map<string, ObjectRef>>();

  held(node: string): ReadonlyMap<string, ObjectRef> {
    return this.byNode.get(node) ?? EMPTY;
  }

  get(node: string, uid: string): ObjectRef | undefined {
    return this.byNode.get(node)?.get(uid);
  }

  record(node: string, ref: ObjectRef): void {
    let refs = this.byNode.get(node);
    if (!refs) this.byNode.set(node, (refs = new Map()));
    refs.set(ref.uid, { ...ref });
  }

  forget(node: string, uid: string): void {
    const refs = this.byNode.get(node);
    refs?.delete(uid);
    if (refs?.size === 0) this.byNode.delete(node);
  }

  reset(node: string, refs: readonly ObjectRef[]): void {
    if (refs.length === 0) this.byNode.delete(node);
    else this.byNode.set(node, new Map(refs.map((r) => [r.uid, { ...r }])));
  }

  nodes(): string[] {
    return [...this.byNode.keys()].sort();
  }

  drop(node: string): void {
    this.byNode.delete(node);
  }
}
