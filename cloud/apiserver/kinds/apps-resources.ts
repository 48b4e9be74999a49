import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import type { KubeObject } from '../../../shared/types.js';
import { normalizePodSpecQuantities } from '../admission/quantity-validation.js';
import { defaultDeployment, defaultReplicaSet } from '../../client/apps-defaults.js';
import { deploymentPrinter, replicaSetPrinter } from './apps-printers.js';
import { validateDeployment, validateReplicaSet } from './apps-validation.js';
import type { ResourceDef, ResourceStrategy, SubresourceDef } from './registry.js';

/** apps/v1 Deployments and ReplicaSets: rows of the resource table, with status and scale subresources. */

export const APPS_GROUP = 'apps';

const status: SubresourceDef = { name: 'status', verbs: ['get', 'patch', 'update'] };
/** The scale subresource speaks autoscaling/v1 Scale, as kube-apiserver's discovery says. */
const scale: SubresourceDef = { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] };

/** Quantities in a workload's pod template, as a pod's (quantity-validation.ts). */
const normalizeTemplate = (obj: KubeObject): void => normalizePodSpecQuantities((obj as Deployment | ReplicaSet).spec?.template?.spec);

const deploymentStrategy: ResourceStrategy = {
  normalize: normalizeTemplate,
  defaultOnCreate: (obj) => defaultDeployment(obj as Deployment),
  validate: (obj, ctx) => validateDeployment(obj as Deployment, ctx),
};

const replicaSetStrategy: ResourceStrategy = {
  normalize: normalizeTemplate,
  defaultOnCreate: (obj) => defaultReplicaSet(obj as ReplicaSet),
  validate: (obj, ctx) => validateReplicaSet(obj as ReplicaSet, ctx),
  fields: (obj) => ({ 'status.replicas': String((obj as ReplicaSet).status?.replicas ?? 0) }),
};

export const deploymentResource: ResourceDef = {
  group: APPS_GROUP, version: 'v1', resource: 'deployments', singular: 'deployment', kind: 'Deployment', namespaced: true,
  shortNames: ['deploy'], categories: ['all'], subresources: [status, scale], printer: deploymentPrinter, strategy: deploymentStrategy,
};

export const replicaSetResource: ResourceDef = {
  group: APPS_GROUP, version: 'v1', resource: 'replicasets', singular: 'replicaset', kind: 'ReplicaSet', namespaced: true,
  shortNames: ['rs'], categories: ['all'], subresources: [status, scale], printer: replicaSetPrinter, strategy: replicaSetStrategy,
};

export const appsResources: ResourceDef[] = [deploymentResource, replicaSetResource];
