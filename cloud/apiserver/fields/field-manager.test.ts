import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/types.js';
import { configMapResource } from '../kinds/config-resources.js';
import { recordUpdate, scopeOf } from './field-manager.js';
import { difference, emptySet, insert } from './field-set.js';
import type { ManagedFieldsEntry } from './managed-fields.js';

const configMaps = configMapResource;
const managed = (obj: KubeObject): ManagedFieldsEntry[] => (obj.metadata as { managedFields: ManagedFieldsEntry[] }).managedFields;

describe('field manager, unchanged managers', () => {
  it('gives back the same set when the difference takes nothing from it', () => {
    const a = emptySet();
    insert(a, ['f:data', 'f:a']);
    insert(a, ['f:data', 'f:b']);
    const other = emptySet();
    insert(other, ['f:metadata', 'f:labels', 'f:x']);
    expect(difference(a, other)).toBe(a);
    const taken = emptySet();
    insert(taken, ['f:data', 'f:a']);
    const rest = difference(a, taken);
    expect(rest).not.toBe(a);
    expect([...rest.children.get('f:data')!.children.keys()]).toEqual(['f:b']);
    expect([...a.children.get('f:data')!.children.keys()]).toEqual(['f:a', 'f:b']); // a itself is untouched
  });

  it("writes a stored manager's fieldsV1 back as it is when the write leaves its fields alone", () => {
    const scope = scopeOf(configMaps);
    const created: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } } as KubeObject;
    recordUpdate(scope, undefined, created, 'first', 0);
    const live = structuredClone(created);
    const next = { ...structuredClone(created), data: { a: '1', b: '2' } } as KubeObject; // sends back the managedFields it read
    recordUpdate(scope, live, next, 'second', 1000);
    const [first, second] = managed(next);
    expect(first!.manager).toBe('first');
    expect(first!.fieldsV1).toBe(managed(live)[0]!.fieldsV1); // not decoded and encoded again
    const bare = { ...structuredClone(created), metadata: { name: 'c' }, data: { a: '1', c: '3' } } as KubeObject; // sends no managedFields
    recordUpdate(scope, live, bare, 'second', 1000);
    expect(managed(bare)[0]!.fieldsV1).toBe(managed(live)[0]!.fieldsV1);
    expect(second).toMatchObject({ manager: 'second', fieldsV1: { 'f:data': { 'f:b': {} } } });
    const taking = { ...structuredClone(next), data: { a: 'changed', b: '2' } } as KubeObject;
    recordUpdate(scope, structuredClone(next), taking, 'third', 2000);
    expect(managed(taking).map((m) => [m.manager, m.fieldsV1])).toEqual([
      ['second', { 'f:data': { 'f:b': {} } }],
      ['third', { 'f:data': { 'f:a': {} } }],
    ]);
  });
});
