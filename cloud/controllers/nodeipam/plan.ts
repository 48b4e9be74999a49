import type { Node } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';

/** The ranges the allocator marked for one node, and for which Node object (uid). */
export interface Holding {
  uid: string;
  cidrs: string[];
}

/** What a Node event means for the allocator's book. */
export type BookAction =
  /** The node has ranges: mark them used, held for it (a restart marks every existing node's). */
  | { type: 'occupy'; node: string; uid: string; cidrs: string[] }
  /** Ranges go back to the set (the node was deleted, or has others than the ones held). */
  | { type: 'release'; node: string; cidrs: string[] }
  /** The node has none: plan an allocation for it. */
  | { type: 'allocate'; node: string }
  /** The node is gone: it waits for no range any more. */
  | { type: 'forget'; node: string };

/** What to do for a node that may need a range. */
export type AllocationAction =
  /** Take this range from the set (the cursor moves past it), hold it for the node and write it. */
  | { type: 'assign'; cidr: string }
  /** The node's range is held but not yet on the Node (a write that failed or is not seen yet): write it again. */
  | { type: 'write'; cidr: string }
  /** None is left: the node stays without; `report` the first time (CIDRNotAvailable). */
  | { type: 'notAvailable'; report: boolean };

/** spec.podCIDRs, or spec.podCIDR alone as the API's conversion reads it. */
export function podCIDRsOf(node: Node): string[] {
  const { podCIDRs, podCIDR } = node.spec ?? {};
  if (podCIDRs && podCIDRs.length > 0) return podCIDRs;
  return podCIDR ? [podCIDR] : [];
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * kube's range allocator's node handlers, pure: a node with ranges has them marked used (once),
 * a node without is planned for, a deleted node's ranges go back. `held` is what the book
 * holds under the node's name.
 */
export function planNodeEvent(event: Exclude<CacheEvent<Node>, { type: 'SYNCED' }>, held: Holding | undefined): BookAction[] {
  const node = event.object;
  const name = node.metadata.name ?? '';
  const uid = node.metadata.uid ?? '';
  if (event.type === 'DELETED') {
    const forget: BookAction = { type: 'forget', node: name };
    return held?.uid === uid ? [{ type: 'release', node: name, cidrs: held.cidrs }, forget] : [forget];
  }
  const cidrs = podCIDRsOf(node);
  const stale = held && (held.uid !== uid || (cidrs.length > 0 && !sameList(held.cidrs, cidrs)));
  const release: BookAction[] = stale ? [{ type: 'release', node: name, cidrs: held.cidrs }] : [];
  if (cidrs.length === 0) return [...release, { type: 'allocate', node: name }];
  if (held && !stale) return [];
  return [...release, { type: 'occupy', node: name, uid, cidrs }];
}

/**
 * For one node: nothing when it is gone or has a range; its held range written again; else the
 * next free range (`next()`, read from the set's cursor only when needed), or none left. Pure.
 */
export function planAllocation(node: Node | undefined, held: Holding | undefined, next: () => string | undefined, reported: boolean): AllocationAction[] {
  if (!node || podCIDRsOf(node).length > 0) return [];
  if (held && held.uid === node.metadata.uid) return [{ type: 'write', cidr: held.cidrs[0]! }];
  const cidr = next();
  if (cidr === undefined) return [{ type: 'notAvailable', report: !reported }];
  return [{ type: 'assign', cidr }];
}
