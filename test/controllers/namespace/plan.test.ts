import { describe, expect, it } from 'vitest';
import type { ResourceDef } from '../../../cloud/apiserver/kinds/registry.js';
import { clusterResources } from '../../../cloud/apiserver/kinds/resources.js';
import { planNamespace, type NamespaceAction, type NamespaceContent } from '../../../cloud/controllers/namespace/plan.js';
import type { KubeObject, Namespace } from '../../../shared/types.js';

const def = (resource: string): ResourceDef => clusterResources.find((d) => d.resource === resource)!;
const DELETED_AT = '2026-01-01T00:00:00Z';

const ns = (deleting: boolean, finalizers: string[] = ['kubernetes']): Namespace => ({
  kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'team', uid: 'ns1', ...(deleting ? { deletionTimestamp: DELETED_AT } : {}) }, spec: { finalizers },
});
const obj = (name: string, deleting = false): KubeObject => ({ metadata: { name, namespace: 'team', uid: `${name}-uid`, ...(deleting ? { deletionTimestamp: DELETED_AT } : {}) } });
const content = (resource: string, ...items: KubeObject[]): NamespaceContent => ({ def: def(resource), items });

/** Actions with kinds and objects reduced to "resource/name". */
function brief(actions: NamespaceAction[]): unknown[] {
  return actions.map((a) => (a.type === 'delete' ? `delete ${a.def.resource}/${a.object.metadata.name}` : a));
}

describe('planNamespace: empty a namespace being deleted, then finalize it', () => {
  const cases: { name: string; ns: Namespace; contents: NamespaceContent[]; want: unknown[] }[] = [
    { name: 'not being deleted: nothing', ns: ns(false), contents: [content('pods', obj('a'))], want: [] },
    {
      name: 'content first, events wait for the rest',
      ns: ns(true),
      contents: [content('pods', obj('a'), obj('b')), content('events', obj('e'))],
      want: ['delete pods/a', 'delete pods/b', { type: 'wait', remaining: 3 }],
    },
    {
      name: 'objects already being deleted are waited for, not deleted again',
      ns: ns(true),
      contents: [content('pods', obj('a', true), obj('b')), content('events')],
      want: ['delete pods/b', { type: 'wait', remaining: 2 }],
    },
    { name: 'only events left: they go now', ns: ns(true), contents: [content('pods'), content('events', obj('e'))], want: ['delete events/e', { type: 'wait', remaining: 1 }] },
    { name: 'empty: "kubernetes" leaves spec.finalizers', ns: ns(true, ['example.com/x', 'kubernetes']), contents: [content('pods'), content('events')], want: [{ type: 'finalize', finalizers: ['example.com/x'] }] },
    { name: 'empty, and no spec.finalizers: delete the namespace again', ns: ns(true, []), contents: [content('pods')], want: [{ type: 'deleteNamespace' }] },
    { name: 'empty, but someone else\'s finalizer is left: nothing', ns: ns(true, ['example.com/x']), contents: [], want: [] },
  ];
  it.each(cases)('$name', ({ ns: namespace, contents, want }) => {
    expect(brief(planNamespace(namespace, contents))).toEqual(want);
  });
});
