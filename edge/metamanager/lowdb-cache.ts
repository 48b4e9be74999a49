import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';
import { CacheDocument, emptyCacheData, type CacheData } from './cache-document.js';
import type { LocalCache } from './local-cache.js';

export const CACHE_FILE = 'cache.json';

/**
 * The durable LocalCache: one lowdb JSON file (written to a temp file, then renamed).
 * `new Low(file)` on purpose: JSONFilePreset silently keeps data in memory when NODE_ENV is "test".
 */
export async function openLowdbCache(path: string, options: { tombstoneLimit?: number } = {}): Promise<LocalCache> {
  await mkdir(dirname(path), { recursive: true });
  // Compact JSON: the file is rewritten on every flush, and indentation only costs time.
  const file = new DataFile<CacheData>(path, { parse: (text) => JSON.parse(text) as CacheData, stringify: (data) => JSON.stringify(data) });
  const db = new Low<CacheData>(file, emptyCacheData());
  await db.read();
  const data = { ...emptyCacheData(), ...db.data };
  db.data = data;
  return new CacheDocument(data, () => db.write(), options.tombstoneLimit);
}
