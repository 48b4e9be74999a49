import { describe, expect, it } from 'vitest';
import { createMemoryCache } from '../../edge/metamanager/local-cache.js';
import { cachedPodObjects } from '../../edge/volumes/pod-objects.js';
import { holdIn, pod } from './fixtures.js';

describe('cachedPodObjects (what env and volumes read from the local cache)', () => {
  it('finds ConfigMaps, Secrets, claims and volumes by namespace and name, never a Pod', () => {
    const cache = createMemoryCache();
    holdIn(cache, { kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default', uid: 'c1' }, data: { a: '1' } } as never);
    holdIn(cache, { kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'other', uid: 'c2' }, data: { a: '2' } } as never);
    holdIn(cache, { kind: 'Secret', metadata: { name: 'db', namespace: 'default', uid: 's1' }, data: {} } as never);
    holdIn(cache, { kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default', uid: 'p1' }, spec: { volumeName: 'pv-1' } } as never);
    holdIn(cache, { kind: 'PersistentVolume', metadata: { name: 'pv-1', uid: 'v1' }, spec: { hostPath: { path: '/d' } } } as never);
    holdIn(cache, { ...pod('cfg', 'u1'), kind: 'Pod' });
    const objects = cachedPodObjects(cache);
    expect(objects.configMap('default', 'cfg')?.data).toEqual({ a: '1' });
    expect(objects.configMap('other', 'cfg')?.data).toEqual({ a: '2' });
    expect(objects.configMap('default', 'db')).toBeUndefined();
    expect(objects.secret('default', 'db')).toBeDefined();
    expect(objects.secret('other', 'db')).toBeUndefined();
    expect(objects.persistentVolumeClaim!('default', 'data')?.spec?.volumeName).toBe('pv-1');
    expect(objects.persistentVolume!('pv-1')?.spec?.hostPath?.path).toBe('/d');
  });

  it('reads the cache as it is now, by name: what is applied or deleted later is seen at once', () => {
    const cache = createMemoryCache();
    const objects = cachedPodObjects(cache);
    expect(objects.persistentVolume!('pv-1')).toBeUndefined();
    cache.apply({ kind: 'PersistentVolume', name: 'pv-1', uid: 'v1', resourceVersion: '1' }, { kind: 'PersistentVolume', metadata: { name: 'pv-1', uid: 'v1' }, spec: { local: { path: '/mnt' } } } as never);
    expect(objects.persistentVolume!('pv-1')?.spec?.local?.path).toBe('/mnt');
    cache.delete({ kind: 'PersistentVolume', name: 'pv-1', uid: 'v1' });
    expect(objects.persistentVolume!('pv-1')).toBeUndefined();
  });
});
