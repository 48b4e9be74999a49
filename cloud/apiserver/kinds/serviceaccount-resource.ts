import type { KubeObject } from '../../../shared/types.js';
import { age } from '../rest/tables.js';
import { ageColumn, nameColumn } from './printers.js';
import type { ResourceDef } from './registry.js';

/** core/v1 ServiceAccounts (no token subresource: kedge issues no ServiceAccount tokens). */
export interface ServiceAccount extends KubeObject {
  secrets?: { name?: string }[];
  imagePullSecrets?: { name?: string }[];
  automountServiceAccountToken?: boolean;
}

export const serviceAccountResource: ResourceDef = {
  group: '', version: 'v1', resource: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount', namespaced: true,
  shortNames: ['sa'], categories: [], subresources: [],
  printer: {
    columns: [nameColumn, { name: 'Secrets', type: 'string', description: 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.' }, ageColumn],
    cells: (obj, now) => [obj.metadata.name ?? '', ((obj as ServiceAccount).secrets ?? []).length, age(obj.metadata.creationTimestamp, now)],
  },
};
