import type { ControllerRevision, DaemonSet } from '../../../shared/daemonset-types.js';
import { age } from '../rest/tables.js';
import { wideColumns, wideCells } from './apps-printers.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';
import { labelsText } from './service-printers.js';

/** `kubectl get daemonsets` / `controllerrevisions` columns, as kube-apiserver's printDaemonSet and printControllerRevision. */

export const daemonSetPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Desired', type: 'integer', description: 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).' },
    { name: 'Current', type: 'integer', description: 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.' },
    { name: 'Ready', type: 'integer', description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.' },
    { name: 'Up-to-date', type: 'integer', description: 'The total number of nodes that are running updated daemon pod' },
    { name: 'Available', type: 'integer', description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)' },
    { name: 'Node Selector', type: 'string', description: 'NodeSelector is a selector which must be true for the pod to fit on a node.' },
    ageColumn,
    ...wideColumns('A label query over pods that are managed by the daemon set.'),
  ],
  cells(obj, now) {
    const ds = obj as DaemonSet;
    const s = ds.status;
    return [
      ds.metadata.name ?? '',
      s?.desiredNumberScheduled ?? 0,
      s?.currentNumberScheduled ?? 0,
      s?.numberReady ?? 0,
      s?.updatedNumberScheduled ?? 0,
      s?.numberAvailable ?? 0,
      labelsText(ds.spec?.template?.spec?.nodeSelector),
      age(ds.metadata.creationTimestamp, now),
      ...wideCells(ds.spec?.template, ds.spec?.selector),
    ];
  },
};

export const controllerRevisionPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Controller', type: 'string', description: 'Controller of the object' },
    { name: 'Revision', type: 'string', description: 'Revision indicates the revision of the state represented by Data.' },
    ageColumn,
  ],
  cells(obj, now) {
    const cr = obj as ControllerRevision;
    const ref = cr.metadata.ownerReferences?.find((r) => r.controller === true);
    const group = ref?.apiVersion.includes('/') ? ref.apiVersion.slice(0, ref.apiVersion.indexOf('/')) : '';
    const controller = ref ? `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}` : '<none>';
    return [cr.metadata.name ?? '', controller, cr.revision ?? 0, age(cr.metadata.creationTimestamp, now)];
  },
};
