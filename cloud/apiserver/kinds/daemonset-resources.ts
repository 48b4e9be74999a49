import type { PodTemplateSpec } from '../../../shared/apps-types.js';
import type { ControllerRevision, DaemonSet } from '../../../shared/daemonset-types.js';
import { TEMPLATE_GENERATION_ANNOTATION } from '../../../shared/daemonset-types.js';
import { defaultDaemonSet } from '../../client/daemonset-defaults.js';
import { sameTemplate } from '../../client/template-equality.js';
import { normalizePodSpecQuantities } from '../admission/quantity-validation.js';
import { APPS_GROUP } from './apps-resources.js';
import { anyObject, checkTypes, labelledMeta, selectorShape, type Shape } from './node-decoding.js';
import { controllerRevisionPrinter, daemonSetPrinter } from './daemonset-printers.js';
import { validateControllerRevision, validateDaemonSet } from './daemonset-validation.js';
import type { PrepareContext, ResourceDef, ResourceStrategy } from './registry.js';

/** apps/v1 DaemonSets (with a status subresource) and the ControllerRevisions that keep their template history. */

/** The DaemonSet fields kedge reads, type-checked as Go's decoding would (400 for a value of the wrong type). */
const daemonSetShape: Shape = {
  fields: {
    metadata: labelledMeta,
    spec: {
      fields: {
        selector: selectorShape,
        template: {
          fields: {
            metadata: labelledMeta,
            spec: { fields: { containers: { list: anyObject }, tolerations: { list: anyObject }, nodeSelector: { map: 'string' }, affinity: anyObject, hostNetwork: 'bool', nodeName: 'string' } },
          },
        },
        updateStrategy: { fields: { type: 'string', rollingUpdate: { fields: { maxUnavailable: 'intOrString', maxSurge: 'intOrString' } } } },
        minReadySeconds: 'number',
        revisionHistoryLimit: 'number',
      },
    },
  },
};

const daemonSetStrategy: ResourceStrategy = {
  /** kube defaults on every decode: an update that switches to RollingUpdate gets maxUnavailable 1 too. */
  normalize(obj) {
    checkTypes(obj, daemonSetShape, 'DaemonSet');
    const ds = obj as DaemonSet;
    normalizePodSpecQuantities(ds.spec?.template?.spec);
    defaultDaemonSet(ds);
  },
  prepare: async (obj, ctx) => setTemplateGeneration(obj as DaemonSet, ctx),
  validate: (obj, ctx) => validateDaemonSet(obj as DaemonSet, ctx),
};

/**
 * dsStrategy.PrepareForCreate/Update: templateGeneration (kept in apps/v1 as an annotation)
 * starts at 1 and grows by one each time the pod template changes.
 */
function setTemplateGeneration(ds: DaemonSet, ctx: PrepareContext): void {
  checkTypes(ds, daemonSetShape, 'DaemonSet'); // this runs before normalize
  if (!isObject(ds.metadata)) return;
  const old = ctx.operation === 'update' ? (ctx.old as DaemonSet | undefined) : undefined;
  const before = Number(old?.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? 0);
  const [was, is] = [old?.spec?.template, isObject(ds.spec) ? ds.spec.template : undefined];
  const changed = !isObject(was) || !isObject(is) || !sameTemplateIfWellFormed(was, is);
  const generation = old ? before + (changed ? 1 : 0) : 1;
  ds.metadata.annotations = { ...ds.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
}

/** A template too malformed to compare counts as changed: validation refuses it anyway. */
function sameTemplateIfWellFormed(a: PodTemplateSpec, b: PodTemplateSpec): boolean {
  try {
    return sameTemplate(a, b);
  } catch {
    return false;
  }
}

const isObject = <T>(value: T | undefined): value is T => typeof value === 'object' && value !== null && !Array.isArray(value);

const controllerRevisionStrategy: ResourceStrategy = {
  normalize: (obj) => checkTypes(obj, { fields: { revision: 'number' } }, 'ControllerRevision'),
  validate: (obj, ctx) => validateControllerRevision(obj as ControllerRevision, ctx),
};

export const daemonSetResource: ResourceDef = {
  group: APPS_GROUP, version: 'v1', resource: 'daemonsets', singular: 'daemonset', kind: 'DaemonSet', namespaced: true,
  shortNames: ['ds'], categories: ['all'], subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }], printer: daemonSetPrinter, strategy: daemonSetStrategy,
};

export const controllerRevisionResource: ResourceDef = {
  group: APPS_GROUP, version: 'v1', resource: 'controllerrevisions', singular: 'controllerrevision', kind: 'ControllerRevision', namespaced: true,
  shortNames: [], categories: [], subresources: [], printer: controllerRevisionPrinter, strategy: controllerRevisionStrategy,
};

export const daemonSetResources: ResourceDef[] = [daemonSetResource, controllerRevisionResource];

