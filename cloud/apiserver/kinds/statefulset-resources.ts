import type { StatefulSet } from '../../../shared/statefulset-types.js';
import { defaultStatefulSet } from '../../client/statefulset-defaults.js';
import { normalizePodSpecQuantities } from '../admission/quantity-validation.js';
import { age } from '../rest/tables.js';
import { APPS_GROUP } from './apps-resources.js';
import { templateColumns, wideCells } from './apps-printers.js';
import { anyObject, checkTypes, labelledMeta, selectorShape, type Shape } from './node-decoding.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer, ResourceDef, ResourceStrategy } from './registry.js';
import { validateStatefulSet } from './statefulset-validation.js';

/** apps/v1 StatefulSets, with status and scale subresources. */

/** The StatefulSet fields kedge reads, type-checked as Go's decoding would (400 for a value of the wrong type). */
const statefulSetShape: Shape = {
  fields: {
    metadata: labelledMeta,
    spec: {
      fields: {
        replicas: 'number',
        selector: selectorShape,
        template: { fields: { metadata: labelledMeta, spec: { fields: { containers: { list: anyObject }, volumes: { list: anyObject } } } } },
        volumeClaimTemplates: { list: anyObject },
        serviceName: 'string',
        podManagementPolicy: 'string',
        updateStrategy: { fields: { type: 'string', rollingUpdate: { fields: { partition: 'number', maxUnavailable: 'intOrString' } } } },
        persistentVolumeClaimRetentionPolicy: { fields: { whenDeleted: 'string', whenScaled: 'string' } },
        ordinals: { fields: { start: 'number' } },
        minReadySeconds: 'number',
        revisionHistoryLimit: 'number',
      },
    },
  },
};

/** kube defaults on every decode, so an update that drops a defaulted field gets it back. */
const statefulSetStrategy: ResourceStrategy = {
  normalize(obj) {
    checkTypes(obj, statefulSetShape, 'StatefulSet');
    const sts = obj as StatefulSet;
    normalizePodSpecQuantities(sts.spec?.template?.spec);
    defaultStatefulSet(sts);
  },
  validate: (obj, ctx) => validateStatefulSet(obj as StatefulSet, ctx),
  fields: (obj) => ({ 'status.replicas': String((obj as StatefulSet).status?.replicas ?? 0) }),
};

/** `kubectl get statefulsets` columns, as kube-apiserver's printStatefulSet. */
const statefulSetPrinter: Printer = {
  columns: [nameColumn, { name: 'Ready', type: 'string', description: 'Number of the pod with ready state' }, ageColumn, ...templateColumns],
  cells(obj, now) {
    const sts = obj as StatefulSet;
    const ready = `${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 0}`;
    return [sts.metadata.name ?? '', ready, age(sts.metadata.creationTimestamp, now), ...wideCells(sts.spec?.template, sts.spec?.selector).slice(0, 2)];
  },
};

export const statefulSetResource: ResourceDef = {
  group: APPS_GROUP, version: 'v1', resource: 'statefulsets', singular: 'statefulset', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'],
  subresources: [
    { name: 'status', verbs: ['get', 'patch', 'update'] },
    { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
  ],
  printer: statefulSetPrinter,
  strategy: statefulSetStrategy,
};
