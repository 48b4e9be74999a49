import { describe, expect, it } from 'vitest';
import { isNewer, planResync, podRef } from '../../cloud/hub/resync.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';

const pod = (name: string, uid: string, rv: string): Pod => ({
  metadata: { namespace: 'default', name, uid, resourceVersion: rv },
  spec: { containers: [{ name: 'c' }], nodeName: 'edge-1' },
});
const held = (name: string, uid: string, rv?: string): ObjectRef => ({ kind: 'Pod', namespace: 'default', name, uid, ...(rv ? { resourceVersion: rv } : {}) });

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
    expect(plan.applies.map((p) => p.metadata.uid)).toEqual(applies);
    expect(plan.deletes.map((r) => r.uid)).toEqual(deletes);
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
    expect(podRef(pod('a', 'ua', '5'))).toEqual({ kind: 'Pod', namespace: 'default', name: 'a', uid: 'ua', resourceVersion: '5' });
  });
});
