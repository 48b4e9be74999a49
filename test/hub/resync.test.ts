import { describe, expect, it } from 'vitest';
import { desiredOf, isNewer, objectRef, planResync, podRef, type Desired } from '../../cloud/hub/resync.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';

const podObject = (name: string, uid: string, rv: string): Pod => ({
  metadata: { namespace: 'default', name, uid, resourceVersion: rv },
  spec: { containers: [{ name: 'c' }], nodeName: 'edge-1' },
});
const pod = (name: string, uid: string, rv: string): Desired => desiredOf('Pod', podObject(name, uid, rv));
const configMap = (name: string, uid: string, rv: string): Desired => desiredOf('ConfigMap', { metadata: { namespace: 'default', name, uid, resourceVersion: rv }, data: { k: 'v' } } as ConfigMap);
const secret = (name: string, uid: string, rv: string): Desired => desiredOf('Secret', { metadata: { namespace: 'default', name, uid, resourceVersion: rv }, data: { k: 'dg==' } } as Secret);
const held = (name: string, uid: string, rv?: string, kind = 'Pod'): ObjectRef => ({ kind, namespace: 'default', name, uid, ...(rv ? { resourceVersion: rv } : {}) });

describe('desiredOf', () => {
  it('leaves metadata.managedFields out of what goes down to an edge', () => {
    const owned = { ...podObject('a', 'ua', '5'), metadata: { ...podObject('a', 'ua', '5').metadata, managedFields: [{ manager: 'kubectl', operation: 'Apply' }] } } as Pod;
    expect(desiredOf('Pod', owned).object).toEqual(podObject('a', 'ua', '5'));
  });
});

describe('planResync [SYNC-10]', () => {
  const a5 = pod('a', 'ua', '5');
  const b9 = pod('b', 'ub', '9');
  const a2 = pod('a', 'ua2', '12');

  it.each([
    { name: 'nothing wanted, nothing held', desired: [], holds: [], applies: [], deletes: [] },
    { name: 'edge holds nothing: full list', desired: [b9, a5], holds: [], applies: ['ua', 'ub'], deletes: [] },
    { name: 'edge up to date', desired: [a5, b9], holds: [held('a', 'ua', '5'), held('b', 'ub', '9')], applies: [], deletes: [] },
    { name: 'edge holds a newer version than the cache', desired: [a5], holds: [held('a', 'ua', '7')], applies: [], deletes: [] },
    { name: 'stale version', desired: [a5], holds: [held('a', 'ua', '4')], applies: ['ua'], deletes: [] },
    { name: 'rv compared numerically, not as text', desired: [pod('a', 'ua', '10')], holds: [held('a', 'ua', '9')], applies: ['ua'], deletes: [] },
    { name: 'held without resourceVersion', desired: [a5], holds: [held('a', 'ua')], applies: ['ua'], deletes: [] },
    { name: 'held object no longer wanted', desired: [], holds: [held('a', 'ua', '5')], applies: [], deletes: ['ua'] },
    { name: 'same name, another uid: apply new, delete old', desired: [a2], holds: [held('a', 'ua', '5')], applies: ['ua2'], deletes: ['ua'] },
    { name: 'stale rv plus an unknown uid', desired: [a5, b9], holds: [held('a', 'ua', '3'), held('b', 'ub', '9'), held('x', 'ux', '1')], applies: ['ua'], deletes: ['ux'] },
  ])('$name', ({ desired, holds, applies, deletes }) => {
    const plan = planResync(desired, holds);
    expect(plan.applies.map((p) => p.ref.uid)).toEqual(applies);
    expect(plan.deletes.map((r) => r.uid)).toEqual(deletes);
  });

  it.each([
    { name: 'a pod and what it references: config first', desired: [pod('a', 'ua', '5'), secret('pw', 'us', '3'), configMap('cfg', 'uc', '4')], holds: [], applies: ['uc', 'us', 'ua'], deletes: [] },
    { name: 'a ConfigMap changed while away', desired: [pod('a', 'ua', '5'), configMap('cfg', 'uc', '9')], holds: [held('a', 'ua', '5'), held('cfg', 'uc', '4', 'ConfigMap')], applies: ['uc'], deletes: [] },
    { name: 'a ConfigMap re-created under its name', desired: [configMap('cfg', 'uc2', '9')], holds: [held('cfg', 'uc', '4', 'ConfigMap')], applies: ['uc2'], deletes: ['uc'] },
    { name: 'a Secret no pod references any more', desired: [pod('a', 'ua', '5')], holds: [held('a', 'ua', '5'), held('pw', 'us', '3', 'Secret')], applies: [], deletes: ['us'] },
  ])('generic over kinds: $name', ({ desired, holds, applies, deletes }) => {
    const plan = planResync(desired, holds);
    expect(plan.applies.map((p) => p.ref.uid)).toEqual(applies);
    expect(plan.deletes.map((r) => r.uid)).toEqual(deletes);
  });

  it('applies carry their kind in the ref', () => {
    expect(planResync([configMap('cfg', 'uc', '4')], []).applies.map((a) => a.ref)).toEqual([held('cfg', 'uc', '4', 'ConfigMap')]);
  });

  it('deletes carry the held ref (name, namespace, uid)', () => {
    expect(planResync([], [held('x', 'ux', '1')]).deletes).toEqual([held('x', 'ux', '1')]);
  });
});

describe('resourceVersion order', () => {
  it.each([
    ['10', '9', true],
    ['9', '10', false],
    ['5', '5', false],
    ['1', undefined, true],
    [undefined, '1', false],
    ['junk', '1', false],
  ] as const)('%s newer than %s: %s', (a, b, expected) => expect(isNewer(a, b)).toBe(expected));

  it('podRef names one version', () => {
    expect(objectRef('Secret', { metadata: { name: 's', uid: 'us' } })).toEqual({ kind: 'Secret', name: 's', uid: 'us' });
    expect(podRef(podObject('a', 'ua', '5'))).toEqual({ kind: 'Pod', namespace: 'default', name: 'a', uid: 'ua', resourceVersion: '5' });
  });
});
