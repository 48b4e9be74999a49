import { describe, expect, it } from 'vitest';
import { coreResources } from '../../cloud/apiserver/kinds/resources.js';
import { ObjectStorage } from '../../cloud/apiserver/rest/storage.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { KubeObject } from '../../shared/types.js';

const pods = coreResources.find((d) => d.resource === 'pods')!;
type Obj = KubeObject & { spec: { x: number; list: number[] } };

async function stored(): Promise<{ storage: ObjectStorage; read: Obj }> {
  const storage = new ObjectStorage(new MemoryStore());
  await storage.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default' }, spec: { x: 1, list: [1] } } as KubeObject);
  return { storage, read: (await storage.get(pods, 'default', 'a')) as Obj };
}

describe('ObjectStorage copies (what readers share stays as stored)', () => {
  it('a transform that reads only cannot change the stored object: a change below metadata throws', async () => {
    const { storage, read } = await stored();
    const attempt = storage.guaranteedUpdate(pods, 'default', 'a', (current) => {
      (current as Obj).spec.list.push(2);
      return current;
    }, { readsOnly: true });
    await expect(attempt).rejects.toThrow(TypeError);
    expect(((await storage.get(pods, 'default', 'a')) as Obj).spec).toEqual({ x: 1, list: [1] });
    expect(read.spec).toEqual({ x: 1, list: [1] });
  });

  it('a transform that reads only and changes its argument\'s metadata leaves the object it is compared with alone, and writes', async () => {
    const { storage, read } = await stored();
    // Only metadata changes: were the argument the object the result is compared with, the write would be skipped as a no-op.
    const updated = await storage.guaranteedUpdate(pods, 'default', 'a', (current) => {
      current.metadata.labels = { b: 'c' };
      return current;
    }, { readsOnly: true });
    expect(updated.metadata.labels).toEqual({ b: 'c' });
    expect((await storage.get(pods, 'default', 'a')).metadata.labels).toEqual({ b: 'c' });
    expect(updated.metadata.resourceVersion).not.toBe(read.metadata.resourceVersion);
    expect(read.metadata.labels).toBeUndefined();
    expect(Object.isFrozen((updated as Obj).spec)).toBe(true);
  });

  it('an owned write freezes the caller\'s values without changing its metadata; a plain one stores a copy', async () => {
    const { storage, read } = await stored();
    const next = { ...read, spec: { x: 3, list: [3] } } as Obj;
    await storage.update(pods, next, read.metadata.resourceVersion!, true);
    expect(next.metadata.resourceVersion).toBe(read.metadata.resourceVersion);
    expect(Object.isFrozen(next.spec)).toBe(true);
    const current = (await storage.get(pods, 'default', 'a')) as Obj;
    const plain = { ...current, spec: { x: 4, list: [4] } } as Obj;
    await storage.update(pods, plain, current.metadata.resourceVersion!);
    expect(Object.isFrozen(plain.spec)).toBe(false);
    plain.spec.list.push(5);
    expect(((await storage.get(pods, 'default', 'a')) as Obj).spec).toEqual({ x: 4, list: [4] });
  });
});
