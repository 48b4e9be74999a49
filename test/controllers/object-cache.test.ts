import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/types.js';
import { controllerKeyIn, ObjectCache } from '../../cloud/controllers/object-cache.js';

const owner = (name: string, uid: string): KubeObject => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { namespace: 'ns', name, uid } });
const owned = (ref: { kind: string; name: string; uid: string; controller?: boolean }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'ns', name: 'p', ownerReferences: [{ apiVersion: 'apps/v1', controller: true, ...ref }] },
});

describe('controllerKeyIn', () => {
  const cache = new ObjectCache<KubeObject>();
  cache.apply({ type: 'ADDED', object: owner('web', 'u1') });

  it.each([
    ['the known controller', owned({ kind: 'StatefulSet', name: 'web', uid: 'u1' }), 'ns/web'],
    ['another uid (a set of that name made again)', owned({ kind: 'StatefulSet', name: 'web', uid: 'u0' }), undefined],
    ['another kind', owned({ kind: 'ReplicaSet', name: 'web', uid: 'u1' }), undefined],
    ['a reference that does not control', owned({ kind: 'StatefulSet', name: 'web', uid: 'u1', controller: false }), undefined],
    ['an unknown name', owned({ kind: 'StatefulSet', name: 'db', uid: 'u1' }), undefined],
    ['an orphan', { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name: 'p' } }, undefined],
    ['nothing', undefined, undefined],
  ] as const)('%s', (_, obj, key) => {
    expect(controllerKeyIn(cache, 'StatefulSet', obj)).toBe(key);
  });
});
