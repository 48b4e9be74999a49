import { describe, expect, it } from 'vitest';
import { planDependent, planOwner, type GcAction, type OwnerState } from '../../../cloud/controllers/garbage-collector/plan.js';
import type { GraphEntry } from '../../../cloud/controllers/garbage-collector/object-ref.js';
import { clusterResources } from '../../../cloud/apiserver/kinds/resources.js';
import type { KubeObject, OwnerReference } from '../../../shared/types.js';

const podDef = clusterResources.find((d) => d.resource === 'pods')!;
const DELETED_AT = '2026-01-01T00:00:00Z';

const ownerRef = (uid: string, block = false): OwnerReference => ({ apiVersion: 'v1', kind: 'Pod', name: `owner-${uid}`, uid, ...(block ? { blockOwnerDeletion: true } : {}) });

function entry(uid: string, meta: Partial<KubeObject['metadata']> = {}): GraphEntry {
  return { def: podDef, object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: `obj-${uid}`, namespace: 'default', uid, ...meta } } };
}

/** Actions with their targets reduced to uids, for readable tables. */
function brief(actions: GcAction[]): unknown[] {
  return actions.map((a) => (a.type === 'recheck' ? a : { ...a, target: a.target.object.metadata.uid }));
}

describe('planDependent: what happens to a dependent, given its owners', () => {
  const cases: { name: string; owners: [string, OwnerState][]; meta?: Partial<KubeObject['metadata']>; hasDependents?: boolean; want: unknown[] }[] = [
    { name: 'its owner exists: nothing', owners: [['a', 'solid']], want: [] },
    { name: 'its only owner is gone: deleted in the background', owners: [['a', 'dangling']], want: [{ type: 'delete', target: 'd', policy: 'Background' }] },
    { name: 'all its owners are gone', owners: [['a', 'dangling'], ['b', 'dangling']], want: [{ type: 'delete', target: 'd', policy: 'Background' }] },
    { name: 'one owner of two is gone: only that reference goes', owners: [['a', 'dangling'], ['b', 'solid']], want: [{ type: 'dropOwnerRefs', target: 'd', owners: ['a'] }] },
    { name: 'a solid owner remains beside one deleting in the foreground', owners: [['a', 'waiting'], ['b', 'solid']], want: [{ type: 'dropOwnerRefs', target: 'd', owners: ['a'] }] },
    { name: 'its owner waits for it, it has no dependents', owners: [['a', 'waiting']], want: [{ type: 'delete', target: 'd', policy: 'Background' }] },
    { name: 'its owner waits for it, and it has dependents: foreground too', owners: [['a', 'waiting']], hasDependents: true, want: [{ type: 'delete', target: 'd', policy: 'Foreground' }] },
    { name: 'gone owner, and its own orphan finalizer asks for Orphan', owners: [['a', 'dangling']], meta: { finalizers: ['orphan'] }, want: [{ type: 'delete', target: 'd', policy: 'Orphan' }] },
    { name: 'gone owner, its own foreground finalizer asks for Foreground', owners: [['a', 'dangling']], meta: { finalizers: ['foregroundDeletion'] }, want: [{ type: 'delete', target: 'd', policy: 'Foreground' }] },
    { name: 'already being deleted: nothing', owners: [['a', 'dangling']], meta: { deletionTimestamp: DELETED_AT, finalizers: ['x.io/y'] }, want: [] },
    { name: 'no owners: nothing', owners: [], want: [] },
  ];
  it.each(cases)('$name', ({ owners, meta, hasDependents = false, want }) => {
    const resolved = owners.map(([uid, state]) => ({ ref: ownerRef(uid), state }));
    const dependent = entry('d', { ownerReferences: resolved.map((o) => o.ref), ...meta });
    expect(brief(planDependent(dependent, resolved, hasDependents))).toEqual(want);
  });
});

describe('planOwner: the work of the orphan and foregroundDeletion finalizers', () => {
  const deleting = (finalizers: string[]) => entry('o', { deletionTimestamp: DELETED_AT, finalizers });
  const dep = (uid: string, block: boolean, meta: Partial<KubeObject['metadata']> = {}) => entry(uid, { ownerReferences: [ownerRef('o', block)], ...meta });

  const cases: { name: string; owner: GraphEntry; dependents: GraphEntry[]; want: unknown[] }[] = [
    { name: 'not being deleted: nothing', owner: entry('o', { finalizers: ['orphan'] }), dependents: [dep('a', false)], want: [] },
    {
      name: 'orphan: every dependent loses its reference, then the finalizer goes',
      owner: deleting(['orphan']),
      dependents: [dep('a', true), dep('b', false)],
      want: [
        { type: 'dropOwnerRefs', target: 'a', owners: ['o'] },
        { type: 'dropOwnerRefs', target: 'b', owners: ['o'] },
        { type: 'removeFinalizer', target: 'o', finalizer: 'orphan' },
      ],
    },
    { name: 'orphan without dependents: the finalizer goes', owner: deleting(['x.io/keep', 'orphan']), dependents: [], want: [{ type: 'removeFinalizer', target: 'o', finalizer: 'orphan' }] },
    { name: 'foreground with a blocking dependent: look at it again', owner: deleting(['foregroundDeletion']), dependents: [dep('a', true), dep('b', false)], want: [{ type: 'recheck', uids: ['a'] }] },
    { name: 'foreground whose blocking dependent is being deleted: wait', owner: deleting(['foregroundDeletion']), dependents: [dep('a', true, { deletionTimestamp: DELETED_AT })], want: [] },
    { name: 'foreground with only non-blocking dependents: the finalizer goes', owner: deleting(['foregroundDeletion']), dependents: [dep('b', false)], want: [{ type: 'removeFinalizer', target: 'o', finalizer: 'foregroundDeletion' }] },
    { name: 'foreground with no dependents left', owner: deleting(['foregroundDeletion']), dependents: [], want: [{ type: 'removeFinalizer', target: 'o', finalizer: 'foregroundDeletion' }] },
    { name: 'deleting with someone else\'s finalizer: not the collector\'s business', owner: deleting(['x.io/keep']), dependents: [dep('a', true)], want: [] },
  ];
  it.each(cases)('$name', ({ owner, dependents, want }) => {
    expect(brief(planOwner(owner, dependents))).toEqual(want);
  });
});
