import { describe, expect, it } from 'vitest';
import type { DeleteRequestOptions } from '../../cloud/apiserver/rest/delete-options.js';
import { completesDeletion, finalizersAfterDelete } from '../../cloud/apiserver/rest/deletion-rules.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import type { KubeObject, Namespace } from '../../shared/types.js';

describe('finalizersAfterDelete (kube deletionFinalizersForGarbageCollection)', () => {
  const cases: [string[], DeleteRequestOptions, string[]][] = [
    [[], {}, []],
    [[], { propagationPolicy: 'Background' }, []],
    [[], { propagationPolicy: 'Orphan' }, ['orphan']],
    [[], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    [[], { orphanDependents: true }, ['orphan']],
    [[], { orphanDependents: false }, []],
    [['x.io/a'], { propagationPolicy: 'Orphan' }, ['x.io/a', 'orphan']],
    [['orphan'], {}, ['orphan']],
    [['orphan', 'x.io/a'], {}, ['orphan', 'x.io/a']],
    [['orphan'], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    [['foregroundDeletion', 'x.io/a'], { propagationPolicy: 'Background' }, ['x.io/a']],
  ];
  it.each(cases)('%j with %j → %j', (finalizers, options, want) => {
    expect(finalizersAfterDelete(finalizers, options)).toEqual(want);
  });
});

describe('completesDeletion: when an update removes a deleting object', () => {
  const pods = clusterResources.find((d) => d.resource === 'pods')!;
  const namespaces = clusterResources.find((d) => d.resource === 'namespaces')!;
  const obj = (meta: Partial<KubeObject['metadata']>, spec?: Namespace['spec']): KubeObject => ({ metadata: { name: 'x', ...meta }, ...(spec ? { spec } : {}) }) as KubeObject;
  const deleting = { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 };

  it.each([
    ['the last finalizer goes', pods, obj({ ...deleting, finalizers: ['a'] }), obj({ ...deleting, finalizers: [] }), true],
    ['a finalizer is left', pods, obj({ ...deleting, finalizers: ['a', 'b'] }), obj({ ...deleting, finalizers: ['b'] }), false],
    ['not being deleted', pods, obj({ finalizers: ['a'] }), obj({}), false],
    ['a grace period is still running', pods, obj({ ...deleting, deletionGracePeriodSeconds: 30, finalizers: ['a'] }), obj({ ...deleting }), false],
    ['a namespace still has spec.finalizers', namespaces, obj(deleting, { finalizers: ['kubernetes'] }), obj(deleting, { finalizers: ['kubernetes'] }), false],
    ['a namespace without any finalizer', namespaces, obj(deleting, { finalizers: ['kubernetes'] }), obj(deleting, {}), true],
  ])('%s → %s', (_what, def, current, next, want) => {
    expect(completesDeletion(def, next, current)).toBe(want);
  });
});
