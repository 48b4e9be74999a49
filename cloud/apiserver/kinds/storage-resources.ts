import {
  isDefaultClass,
  STORAGE_GROUP,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../../shared/storage-types.js';
import { normalizeQuantityMap } from '../admission/quantity-validation.js';
import type { LookupContext, ResourceDef, SubresourceDef } from './registry.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter, storageClassPrinter } from './storage-printers.js';
import { validatePersistentVolume, validatePersistentVolumeClaim, validateStorageClass } from './storage-validation.js';

/**
 * core/v1 PersistentVolumes and PersistentVolumeClaims, storage.k8s.io/v1 StorageClasses, with
 * kube's defaults (applied on every write, as kube's decoding does), validation, printers and
 * the DefaultStorageClass admission plugin.
 */

const status: SubresourceDef = { name: 'status', verbs: ['get', 'patch', 'update'] };

export const persistentVolumeResource: ResourceDef = {
  group: '', version: 'v1', resource: 'persistentvolumes', singular: 'persistentvolume', kind: 'PersistentVolume', namespaced: false,
  shortNames: ['pv'], categories: [], subresources: [status], printer: persistentVolumePrinter,
  strategy: {
    normalize(obj) {
      const pv = obj as PersistentVolume;
      if (!pv.spec || typeof pv.spec !== 'object') pv.spec = {};
      normalizeQuantityMap(pv.spec.capacity);
      pv.spec.persistentVolumeReclaimPolicy ??= 'Retain';
      pv.spec.volumeMode ??= 'Filesystem';
    },
    // PrepareForCreate: the status is the controller's; a new volume is Pending until it looks.
    defaultOnCreate: (obj) => void ((obj as PersistentVolume).status = { phase: 'Pending' }),
    validate: (obj, ctx) => validatePersistentVolume(obj as PersistentVolume, ctx),
  },
};

export const persistentVolumeClaimResource: ResourceDef = {
  group: '', version: 'v1', resource: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', kind: 'PersistentVolumeClaim', namespaced: true,
  shortNames: ['pvc'], categories: [], subresources: [status], printer: persistentVolumeClaimPrinter,
  strategy: {
    normalize(obj) {
      const pvc = obj as PersistentVolumeClaim;
      if (!pvc.spec || typeof pvc.spec !== 'object') pvc.spec = {};
      normalizeQuantityMap(pvc.spec.resources?.requests);
      normalizeQuantityMap(pvc.spec.resources?.limits);
      pvc.spec.volumeMode ??= 'Filesystem';
    },
    admitCreate: (obj, ctx) => admitDefaultStorageClass(obj as PersistentVolumeClaim, ctx),
    defaultOnCreate: (obj) => void ((obj as PersistentVolumeClaim).status = { phase: 'Pending' }),
    validate: (obj, ctx) => validatePersistentVolumeClaim(obj as PersistentVolumeClaim, ctx),
  },
};

export const storageClassResource: ResourceDef = {
  group: STORAGE_GROUP, version: 'v1', resource: 'storageclasses', singular: 'storageclass', kind: 'StorageClass', namespaced: false,
  shortNames: ['sc'], categories: [], subresources: [], printer: storageClassPrinter,
  strategy: {
    normalize(obj) {
      const sc = obj as StorageClass;
      sc.reclaimPolicy ??= 'Delete';
      sc.volumeBindingMode ??= 'Immediate';
    },
    validate: (obj, ctx) => validateStorageClass(obj as StorageClass, ctx),
  },
};

export const storageResources: ResourceDef[] = [persistentVolumeResource, persistentVolumeClaimResource, storageClassResource];

/**
 * The DefaultStorageClass admission plugin: a claim that names no class (storageClassName
 * absent; "" asks for none) gets the default one. With several defaults, the newest wins
 * (kube since 1.28), then the first name.
 */
async function admitDefaultStorageClass(pvc: PersistentVolumeClaim, ctx: LookupContext): Promise<void> {
  if (!pvc.spec || typeof pvc.spec !== 'object' || pvc.spec.storageClassName !== undefined) return;
  const defaults = ((await ctx.list(storageClassResource)) as StorageClass[]).filter(isDefaultClass);
  const newest = defaults.sort(newestFirst)[0];
  if (newest) pvc.spec.storageClassName = newest.metadata.name;
}

function newestFirst(a: StorageClass, b: StorageClass): number {
  const at = (sc: StorageClass): number => Date.parse(sc.metadata.creationTimestamp ?? '') || 0;
  return at(b) - at(a) || (a.metadata.name! < b.metadata.name! ? -1 : 1);
}
