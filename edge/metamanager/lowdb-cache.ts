import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { CacheDocument, emptyCacheData, type CacheData } from './cache-document.js';
import type { LocalCache } from './local-cache.js';

export const CACHE_FILE = 'cache.json';

/**
 * The durable LocalCache: one lowdb JSON file (written to a temp file, then renamed).
 * `new Low(new JSONFile(...))` on purpose: JSONFilePreset silently keeps data in memory
 * when NODE_ENV is "test".
 */
export async function openLowdbCache(path: string, options: { tombstoneLimit?: number } = {}): Promise<LocalCache> {
  await mkdir(dirname(path), { recursive: true });
  const db = new Low<CacheData>(new JSONFile<CacheData>(path), emptyCacheData());
  await db.read();
  const data = { ...emptyCacheData(), ...db.data };
  db.data = data;
  return new CacheDocument(data, () => db.write(), options.tombstoneLimit);
}
