import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createMemoryCache } from '../../edge/metamanager/local-cache.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { localCacheContract } from './local-cache.contract.js';

localCacheContract('memory', async () => ({ cache: createMemoryCache(), cleanup: async () => {} }));

localCacheContract('lowdb file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-cache-'));
  const path = join(dir, CACHE_FILE);
  return { cache: await openLowdbCache(path), reopen: () => openLowdbCache(path), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

it('the lowdb cache really writes its file (not the in-memory adapter vitest would pick)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-cache-'));
  try {
    const cache = await openLowdbCache(join(dir, CACHE_FILE));
    cache.apply({ kind: 'Pod', name: 'p', namespace: 'default', uid: 'u1', resourceVersion: '1' }, { metadata: { name: 'p', uid: 'u1' }, spec: { containers: [] } });
    await cache.flush();
    const onDisk = JSON.parse(await readFile(join(dir, CACHE_FILE), 'utf8'));
    expect(Object.keys(onDisk.objects)).toEqual(['u1']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
