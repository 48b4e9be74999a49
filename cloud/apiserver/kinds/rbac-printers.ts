import { timestamp } from '../../client/object-meta.js';
import type { RoleBinding, Subject } from '../auth/rbac/types.js';
import { age } from '../rest/tables.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';

/** kube-apiserver's columns for Roles, ClusterRoles, RoleBindings and ClusterRoleBindings (pkg/printers/internalversion). */

export const rolePrinter: Printer = {
  columns: [nameColumn, { name: 'Created At', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' }],
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ? timestamp(Date.parse(obj.metadata.creationTimestamp)) : ''],
};

const namesOf = (subjects: Subject[] | undefined, kind: string): string =>
  (subjects ?? []).filter((s) => s.kind === kind).map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name)).join(', ');

export const roleBindingPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Role', type: 'string', description: 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.' },
    ageColumn,
    { name: 'Users', type: 'string', priority: 1, description: 'Users in the roleBinding' },
    { name: 'Groups', type: 'string', priority: 1, description: 'Groups in the roleBinding' },
    { name: 'ServiceAccounts', type: 'string', priority: 1, description: 'ServiceAccounts in the roleBinding' },
  ],
  cells(obj, now) {
    const b = obj as RoleBinding;
    const s = b.subjects;
    return [b.metadata.name ?? '', `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`, age(b.metadata.creationTimestamp, now), namesOf(s, 'User'), namesOf(s, 'Group'), namesOf(s, 'ServiceAccount')];
  },
};
