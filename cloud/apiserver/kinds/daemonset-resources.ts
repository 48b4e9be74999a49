import type { ControllerRevision, DaemonSet } from '../../../shared/daemonset-types.js';
import { TEMPLATE_GENERATION_ANNOTATION } from '../../../shared/daemonset-types.js';
import { defaultDaemonSet } from '../../client/daemonset-defaults.js';
import { sameTemplate } from '../../client/template-equality.js';
import { normalizePodSpecQuantities } from '../admission/quantity-validation.js';
import { APPS_GROUP } from './apps-resources.js';
import { controllerRevisionPrinter, daemonSetPrinter } from './daemonset-printers.js';
import { validateControllerRevision, validateDaemonSet } from './daemonset-validation.js';
import type { PrepareContext, ResourceDef, ResourceStrategy } from './registry.js';

/** apps/v1 DaemonSets (with a status subresource) and the ControllerRevisions that keep their template history. */

const daemonSetStrategy: ResourceStrategy = {
  /** kube defaults on every decode: an update that switches to RollingUpdate gets maxUnavailable 1 too. */
  normalize(obj) {
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
  if (!ds.metadata || typeof ds.metadata !== 'object') return;
  const old = ctx.operation === 'update' ? (ctx.old as DaemonSet | undefined) : undefined;
  const before = Number(old?.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? 0);
  const changed = !old || !ds.spec?.template || !old.spec?.template || !sameTemplate(old.spec.template, ds.spec.template);
  const generation = old ? before + (changed ? 1 : 0) : 1;
  ds.metadata.annotations = { ...ds.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
}

const controllerRevisionStrategy: ResourceStrategy = {
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

