import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { AedesMemoryPersistence, CallbackError, Packet } from 'aedes-persistence';

const aedesMemoryPersistence = createRequire(import.meta.url)('aedes-persistence') as () => AedesMemoryPersistence;
type Retained = Packet & { topic: string; payload: Buffer };

const isExact = (pattern: string): boolean => !pattern.includes('+') && !pattern.includes('#');

/**
 * aedes' in-memory persistence, with its retained messages also indexed by topic. aedes looks
 * the retained messages up on every SUBSCRIBE, and its own store tests each of them against
 * the pattern: with one retained presence per node, 1,000 edges reconnecting at once cost a
 * million topic matches (15% of the cloud's CPU in a reconnect storm). An edge subscribes to
 * exact topics only, so its lookup becomes one read of the index; a wildcard (the hub's, once
 * per connection) still goes to aedes' scan.
 */
export function indexedMemoryPersistence(): AedesMemoryPersistence {
  const persistence = aedesMemoryPersistence();
  const retained = new Map<string, Retained>();
  const storeRetained = persistence.storeRetained.bind(persistence);
  const combined = persistence.createRetainedStreamCombi.bind(persistence);
  // aedes 1.2 calls it without a callback and waits on the promise it then returns.
  persistence.storeRetained = ((stored: Packet, cb?: (error: CallbackError) => void): unknown => {
    const packet = stored as Retained;
    // As aedes' store does: an empty payload removes the topic's retained message.
    if (packet.payload.length === 0) retained.delete(packet.topic);
    else retained.set(packet.topic, { ...packet });
    return (storeRetained as (p: Packet, cb?: (error: CallbackError) => void) => unknown)(stored, cb);
  }) as AedesMemoryPersistence['storeRetained'];
  persistence.createRetainedStreamCombi = (patterns: string[]): Readable => {
    if (!patterns.every(isExact)) return combined(patterns);
    return Readable.from(patterns.flatMap((topic) => retained.get(topic) ?? []));
  };
  return persistence;
}
