import type { Observable, Subscription } from 'rxjs';
import type { Node } from '../../shared/types.js';
import type { AckLedger } from './ack-ledger.js';
import type { CacheEvent } from '../informer/informer.js';

/**
 * Forgets the ledgers of deleted nodes (KubeEdge GCs ObjectSyncs on node delete and at
 * start): after the first node list, every ledger without a Node; after that, a node's
 * ledger when its Node is deleted, unless the node is connected (a live edge registers its
 * Node again with its next heartbeat, and still holds what the ledger says). `onListed`
 * runs once, after the first list.
 */
export function collectLedgers(
  nodes$: Observable<CacheEvent<Node>>,
  ledger: AckLedger,
  isConnected: (node: string) => boolean,
  onListed: () => void,
): Subscription {
  const listed = new Set<string>();
  let first = true;
  return nodes$.subscribe((event) => {
    if (event.type === 'SYNCED') {
      if (!first) return;
      first = false;
      for (const node of ledger.nodes()) if (!listed.has(node)) ledger.drop(node);
      onListed();
      return;
    }
    const name = event.object.metadata.name ?? '';
    if (first && event.type !== 'DELETED') listed.add(name);
    if (event.type === 'DELETED' && !isConnected(name)) ledger.drop(name);
  });
}
