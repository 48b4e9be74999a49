import { describe, expect, it } from 'vitest';
import { compareVersions, planApply, type HeldVersion } from '../../edge/metamanager/apply-rule.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';

const ref = (uid: string, resourceVersion?: string): ObjectRef => ({ kind: 'Pod', namespace: 'default', name: 'p', uid, ...(resourceVersion ? { resourceVersion } : {}) });
const at = (uid: string, resourceVersion?: string): HeldVersion => ({ uid, ...(resourceVersion ? { resourceVersion } : {}) });

describe('compareVersions', () => {
  it.each([
    ['10', '9', 'newer'],
    ['9', '10', 'older'],
    ['7', '7', 'same'],
    ['5', undefined, 'newer'],
    [undefined, '5', 'older'],
    ['abc', 'abd', 'unordered'],
    ['abc', 'abc', 'same'],
    ['123456789012345678901234567890', '123456789012345678901234567889', 'newer'],
  ] as const)('%s vs %s: %s', (incoming, cached, order) => {
    expect(compareVersions(incoming, cached)).toBe(order);
  });
});

describe('planApply [SYNC-6][SYNC-13]', () => {
  it.each([
    ['a new uid is created', ref('u1', '5'), undefined, undefined, false, { store: true, outcome: 'created' }],
    ['a tombstoned uid is ignored', ref('u1', '9'), undefined, undefined, true, { store: false, why: 'tombstoned' }],
    ['a tombstoned uid is ignored even when held', ref('u1', '9'), at('u1', '5'), undefined, true, { store: false, why: 'tombstoned' }],
    ['the same uid, newer: updated', ref('u1', '6'), at('u1', '5'), undefined, false, { store: true, outcome: 'updated' }],
    ['the same uid, equal: ignored', ref('u1', '5'), at('u1', '5'), undefined, false, { store: false, why: 'not newer' }],
    ['the same uid, older: ignored', ref('u1', '4'), at('u1', '5'), undefined, false, { store: false, why: 'not newer' }],
    ['another uid under the name, newer: replaces it, tombstones it', ref('u2', '8'), undefined, at('u1', '5'), false, { store: true, outcome: 'replaced', replaces: 'u1', tombstone: 'u1' }],
    ['another uid under the name, older: ignored and tombstoned', ref('u1', '3'), undefined, at('u2', '8'), false, { store: false, why: 'superseded', tombstone: 'u1' }],
    ['another uid, unordered versions: replaces without a tombstone', ref('u2', 'x'), undefined, at('u1', 'y'), false, { store: true, outcome: 'replaced', replaces: 'u1' }],
  ] as const)('%s', (_name, incoming, held, rival, tombstoned, plan) => {
    expect(planApply(incoming, held, rival, tombstoned)).toEqual(plan);
  });
});
