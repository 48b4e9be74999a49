import type { Deployment, LabelSelector, PodTemplateSpec, ReplicaSet } from '../../../shared/apps-types.js';
import { selectorString } from '../../../shared/label-selector.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';
import { age } from '../rest/tables.js';

/** `kubectl get deployments` / `replicasets` columns, as kube-apiserver's printDeployment and printReplicaSet. */

/** The wide CONTAINERS and IMAGES columns. */
export const templateColumns = [
  { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.' },
  { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.' },
];

/** CONTAINERS, IMAGES, then SELECTOR with each kind's own description. */
export const wideColumns = (selectorDescription: string) => [...templateColumns, { name: 'Selector', type: 'string', priority: 1, description: selectorDescription }];

const replicaSelector = 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.';

/** CONTAINERS, IMAGES and SELECTOR cells. */
export function wideCells(template: PodTemplateSpec | undefined, selector: LabelSelector | undefined): string[] {
  const containers = template?.spec?.containers ?? [];
  return [
    containers.map((c) => c.name).join(','),
    containers.map((c) => c.image ?? '').join(','),
    selectorString(selector) || '<none>',
  ];
}

export const deploymentPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state' },
    { name: 'Up-to-date', type: 'string', description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.' },
    { name: 'Available', type: 'string', description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.' },
    ageColumn,
    ...wideColumns(replicaSelector),
  ],
  cells(obj, now) {
    const d = obj as Deployment;
    const status = d.status ?? {};
    return [
      d.metadata.name ?? '',
      `${status.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
      status.updatedReplicas ?? 0,
      status.availableReplicas ?? 0,
      age(d.metadata.creationTimestamp, now),
      ...wideCells(d.spec?.template, d.spec?.selector),
    ];
  },
};

export const replicaSetPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Desired', type: 'integer', description: 'Replicas is the number of desired pods.' },
    { name: 'Current', type: 'integer', description: 'Replicas is the most recently observed number of non-terminating pods.' },
    { name: 'Ready', type: 'integer', description: 'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.' },
    ageColumn,
    ...wideColumns(replicaSelector),
  ],
  cells(obj, now) {
    const rs = obj as ReplicaSet;
    return [
      rs.metadata.name ?? '',
      rs.spec?.replicas ?? 0,
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      age(rs.metadata.creationTimestamp, now),
      ...wideCells(rs.spec?.template, rs.spec?.selector),
    ];
  },
};
