import { isDefaultClass, type AccessMode, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../../shared/storage-types.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';
import { age } from '../rest/tables.js';

/** kube-apiserver's columns for PersistentVolumes, PersistentVolumeClaims and StorageClasses (pkg/printers/internalversion). */

const ABBREVIATIONS: readonly [AccessMode, string][] = [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']];

/** helper.GetAccessModesAsString: the modes present, abbreviated, in kube's fixed order. */
export function accessModesString(modes: readonly AccessMode[] | undefined): string {
  const present = new Set(modes ?? []);
  return ABBREVIATIONS.filter(([mode]) => present.has(mode)).map(([, short]) => short).join(',');
}

const unset = (value: string | undefined): string => value ?? '<unset>';

const volumeModeColumn = { name: 'VolumeMode', type: 'string', priority: 1, description: 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.' };

export const persistentVolumePrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Capacity', type: 'string', description: 'capacity is the description of the persistent volume\'s resources and capacity.' },
    { name: 'Access Modes', type: 'string', description: 'accessModes contains all ways the volume can be mounted.' },
    { name: 'Reclaim Policy', type: 'string', description: 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.' },
    { name: 'Status', type: 'string', description: 'phase indicates if a volume is available, bound to a claim, or released by a claim.' },
    { name: 'Claim', type: 'string', description: 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.' },
    { name: 'StorageClass', type: 'string', description: 'StorageClass of the pv' },
    { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pv' },
    { name: 'Reason', type: 'string', description: 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.' },
    ageColumn,
    volumeModeColumn,
  ],
  cells(obj, now) {
    const pv = obj as PersistentVolume;
    const ref = pv.spec?.claimRef;
    return [
      pv.metadata.name ?? '',
      pv.spec?.capacity?.storage ?? '0',
      accessModesString(pv.spec?.accessModes),
      pv.spec?.persistentVolumeReclaimPolicy ?? '',
      pv.metadata.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? ''),
      ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '',
      pv.spec?.storageClassName ?? '',
      unset(pv.spec?.volumeAttributesClassName),
      pv.status?.reason ?? '',
      age(pv.metadata.creationTimestamp, now),
      unset(pv.spec?.volumeMode),
    ];
  },
};

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'phase represents the current phase of PersistentVolumeClaim.' },
    { name: 'Volume', type: 'string', description: 'volumeName is the binding reference to the PersistentVolume backing this claim.' },
    { name: 'Capacity', type: 'string', description: 'capacity represents the actual resources of the underlying volume.' },
    { name: 'Access Modes', type: 'string', description: 'accessModes contains the actual access modes the volume backing the PVC has.' },
    { name: 'StorageClass', type: 'string', description: 'StorageClass of the pvc' },
    { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pvc' },
    ageColumn,
    volumeModeColumn,
  ],
  cells(obj, now) {
    const pvc = obj as PersistentVolumeClaim;
    const bound = Boolean(pvc.spec?.volumeName);
    return [
      pvc.metadata.name ?? '',
      pvc.metadata.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? ''),
      pvc.spec?.volumeName ?? '',
      bound ? (pvc.status?.capacity?.storage ?? '0') : '',
      bound ? accessModesString(pvc.status?.accessModes) : '',
      pvc.spec?.storageClassName ?? '',
      unset(pvc.spec?.volumeAttributesClassName),
      age(pvc.metadata.creationTimestamp, now),
      unset(pvc.spec?.volumeMode),
    ];
  },
};

export const storageClassPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Provisioner', type: 'string', description: 'provisioner indicates the type of the provisioner.' },
    { name: 'ReclaimPolicy', type: 'string', description: 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.' },
    { name: 'VolumeBindingMode', type: 'string', description: 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.' },
    { name: 'AllowVolumeExpansion', type: 'string', description: 'allowVolumeExpansion shows whether the storage class allow volume expand.' },
    ageColumn,
  ],
  cells(obj, now) {
    const sc = obj as StorageClass;
    return [
      `${sc.metadata.name ?? ''}${isDefaultClass(sc) ? ' (default)' : ''}`,
      sc.provisioner ?? '',
      sc.reclaimPolicy ?? 'Delete',
      sc.volumeBindingMode ?? 'Immediate',
      sc.allowVolumeExpansion ?? false,
      age(sc.metadata.creationTimestamp, now),
    ];
  },
};
