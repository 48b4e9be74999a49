import { Low, type Adapter } from 'lowdb';
import { silentLogger, type Logger } from '../../shared/log.js';
import { jsonDocument } from '../../shared/recovering-read.js';
import { JsonStateFile, type SpacedWrites } from '../json-state-file.js';
import { CacheDocument, emptyCacheData, type CacheData } from './cache-document.js';
import type { LocalCache } from './local-cache.js';

export const CACHE_FILE = 'cache.json';

const LOST_CACHE = "starting with an empty cache; the pods the runtime runs keep running until the cloud's first sync says which to run";

export interface LowdbCacheOptions {
  tombstoneLimit?: number;
  /** Told when the file was damaged, and what the cache fell back to. */
  logger?: Logger;
  /** Given: written atomically, not durably, and spaced (hollow edges: EdgeOptions.durableWrites), settled by the edge's stop. */
  spaced?: SpacedWrites;
}

/**
 * The cache, whether it was recovered (its file was damaged, and its last good copy or nothing
 * was used), and whether it awaits the cloud's relist since it was, in this process or an earlier one.
 */
export type LowdbCache = LocalCache & Pick<CacheDocument, 'awaitingRelist' | 'relisted'> & { readonly recovered: boolean };

/**
 * The durable LocalCache: one lowdb JSON document in a JsonStateFile (written durably, its
 * previous version kept; read defensively). Compact JSON: the file is rewritten on every
 * flush, and indentation only costs time.
 */
export async function openLowdbCache(path: string, options: LowdbCacheOptions = {}): Promise<LowdbCache> {
  const file = new JsonStateFile<CacheData>(path, {
    parse: jsonDocument({ objects: 'object?', outbox: 'object?', statusVersion: 'number?', tombstones: 'array?', awaitingRelist: 'boolean?' }),
    logger: options.logger ?? silentLogger,
    otherwise: LOST_CACHE,
    spaced: options.spaced,
  });
  let recovered = false;
  const adapter: Adapter<CacheData> = {
    read: async () => {
      // Written with the copy it falls back to: the hold outlives a restart before the relist.
      const read = await file.readRecovered((value) => ({ ...emptyCacheData(), ...value, awaitingRelist: true }));
      recovered = read.problem !== undefined;
      return read.value ?? null;
    },
    write: (data) => file.write(data),
  };
  const db = new Low<CacheData>(adapter, emptyCacheData());
  await db.read();
  const data = { ...emptyCacheData(), ...db.data };
  db.data = data;
  return Object.assign(new CacheDocument(data, () => db.write(), options.tombstoneLimit), { recovered });
}
