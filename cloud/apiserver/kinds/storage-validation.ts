import type { StatusCause } from '../../../shared/errors.js';
import { parseQuantity } from '../../../shared/quantity.js';
import { ACCESS_MODES, type AccessMode, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../../shared/storage-types.js';
import { stableJson } from '../../client/object-meta.js';
import { checkSubdomain, invalidValue, required, unsupported } from '../admission/admission.js';
import type { AdmissionContext } from './registry.js';

/** ValidatePersistentVolume, ValidatePersistentVolumeClaim(Update) and ValidateStorageClass(Update), with kube's wording. */

const forbidden = (field: string, why: string): StatusCause => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${why}`, field });

const SORTED_MODES = [...ACCESS_MODES].sort();
const VOLUME_MODES = ['Block', 'Filesystem'];
const PV_RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const CLASS_RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
/** The volume sources a PV may name (core.PersistentVolumeSource); exactly one must be set. */
const PV_SOURCES = ['gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'cinder', 'cephfs', 'fc', 'flocker', 'flexVolume', 'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'local', 'storageos', 'csi', 'iscsi'];

function accessModeCauses(modes: readonly AccessMode[] | undefined, field: string, requiredMessage: string): StatusCause[] {
  if (!modes || modes.length === 0) return [{ ...required(field), message: requiredMessage ? `Required value: ${requiredMessage}` : 'Required value' }];
  const causes = modes.filter((m) => !ACCESS_MODES.includes(m)).map((m) => unsupported(field, m, SORTED_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) causes.push(forbidden(field, 'may not use ReadWriteOncePod with other access modes'));
  return causes;
}

function positiveStorage(value: unknown, field: string): StatusCause[] {
  const parsed = parseQuantity(value);
  if (!parsed.ok) return [invalidValue(field, value, parsed.error)];
  if (parsed.negative || parsed.nanos === 0n) return [invalidValue(field, value, 'must be greater than zero')];
  return [];
}

function commonCauses(volumeMode: string | undefined, className: string | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  if (volumeMode !== undefined && !VOLUME_MODES.includes(volumeMode)) causes.push(unsupported('spec.volumeMode', volumeMode, VOLUME_MODES));
  if (className) causes.push(...checkSubdomain('spec.storageClassName', className));
  return causes;
}

export function validatePersistentVolume(pv: PersistentVolume, ctx: AdmissionContext): StatusCause[] {
  const spec = pv.spec ?? {};
  const causes = accessModeCauses(spec.accessModes, 'spec.accessModes', '');
  const capacity = Object.entries(spec.capacity ?? {});
  if (capacity.length === 0) causes.push(required('spec.capacity'));
  for (const [name, value] of capacity) {
    if (name !== 'storage') causes.push(unsupported('spec.capacity', name, ['storage']));
    else causes.push(...positiveStorage(value, 'spec.capacity[storage]'));
  }
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy !== undefined && !PV_RECLAIM_POLICIES.includes(policy)) causes.push(unsupported('spec.persistentVolumeReclaimPolicy', policy, PV_RECLAIM_POLICIES));
  causes.push(...commonCauses(spec.volumeMode, spec.storageClassName), ...sourceCauses(pv));
  if (spec.nodeAffinity?.required && (spec.nodeAffinity.required.nodeSelectorTerms ?? []).length === 0) {
    causes.push({ ...required('spec.nodeAffinity.required.nodeSelectorTerms'), message: 'Required value: must have at least one node selector term' });
  }
  if (ctx.operation === 'update') causes.push(...pvUpdateCauses(pv, ctx.old as PersistentVolume));
  return causes;
}

function sourceCauses(pv: PersistentVolume): StatusCause[] {
  const given = PV_SOURCES.filter((s) => pv.spec?.[s] !== undefined && pv.spec?.[s] !== null);
  if (given.length === 0) return [{ ...required('spec'), message: 'Required value: must specify a volume type' }];
  const causes = given.slice(1).map((s) => forbidden(`spec.${s}`, 'may not specify more than 1 volume type'));
  const hostPath = pv.spec.hostPath;
  if (hostPath && !hostPath.path) causes.push(required('spec.hostPath.path'));
  if (pv.spec.local && !pv.spec.local.path) causes.push(required('spec.local.path'));
  if (pv.spec.local && !pv.spec.nodeAffinity) causes.push(required('spec.nodeAffinity'));
  return causes;
}

function pvUpdateCauses(pv: PersistentVolume, old: PersistentVolume): StatusCause[] {
  const causes: StatusCause[] = [];
  const source = (v: PersistentVolume): string => stableJson(PV_SOURCES.map((s) => v.spec?.[s] ?? null));
  if (source(pv) !== source(old)) causes.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if (pv.spec?.volumeMode !== old.spec?.volumeMode) causes.push(invalidValue('spec.volumeMode', pv.spec?.volumeMode, 'field is immutable'));
  // validatePvNodeAffinity, with kube's path ("nodeAffinity", not under spec); kedge has no beta-to-GA label exception.
  if (old.spec?.nodeAffinity && stableJson(pv.spec?.nodeAffinity ?? null) !== stableJson(old.spec.nodeAffinity)) {
    causes.push(invalidValue('nodeAffinity', pv.spec?.nodeAffinity ?? 'null', 'field is immutable, except for updating from beta label to GA'));
  }
  return causes;
}

export function validatePersistentVolumeClaim(pvc: PersistentVolumeClaim, ctx: AdmissionContext): StatusCause[] {
  const spec = pvc.spec ?? {};
  const causes = accessModeCauses(spec.accessModes, 'spec.accessModes', 'at least 1 access mode is required');
  const storage = spec.resources?.requests?.storage;
  if (storage === undefined) causes.push(required('spec.resources[storage]'));
  else causes.push(...positiveStorage(storage, 'spec.resources[storage]'));
  causes.push(...commonCauses(spec.volumeMode, spec.storageClassName));
  if (ctx.operation === 'update') causes.push(...pvcUpdateCauses(pvc, ctx.old as PersistentVolumeClaim));
  return causes;
}

const IMMUTABLE_SPEC = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

/**
 * ValidatePersistentVolumeClaimUpdate: volumeName may be set once, storageClassName once from
 * unset (retroactive default class); a bound claim may change resources.requests (only
 * growing) and volumeAttributesClassName; nothing else. kube appends a diff; kedge does not.
 */
function pvcUpdateCauses(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): StatusCause[] {
  const next = structuredClone(pvc.spec ?? {});
  const before = structuredClone(old.spec ?? {});
  if (!before.volumeName) before.volumeName = next.volumeName;
  if (before.storageClassName === undefined && !old.spec?.volumeName) before.storageClassName = next.storageClassName;
  const bound = old.status?.phase === 'Bound';
  if (bound) {
    before.resources = next.resources;
    before.volumeAttributesClassName = next.volumeAttributesClassName;
  }
  if (stableJson(next) !== stableJson(before)) return [forbidden('spec', IMMUTABLE_SPEC)];
  const grown = parseQuantity(next.resources?.requests?.storage);
  const was = parseQuantity(old.spec?.resources?.requests?.storage);
  if (bound && grown.ok && was.ok && grown.nanos < was.nanos) return [forbidden('spec.resources.requests.storage', 'field can not be less than previous value')];
  return [];
}

export function validateStorageClass(sc: StorageClass, ctx: AdmissionContext): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!sc.provisioner) causes.push(required('provisioner'));
  if (sc.reclaimPolicy !== undefined && !CLASS_RECLAIM_POLICIES.includes(sc.reclaimPolicy)) causes.push(unsupported('reclaimPolicy', sc.reclaimPolicy, CLASS_RECLAIM_POLICIES));
  if (sc.volumeBindingMode !== undefined && !BINDING_MODES.includes(sc.volumeBindingMode)) causes.push(unsupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  const old = ctx.old as StorageClass | undefined;
  if (ctx.operation !== 'update' || !old) return causes;
  if (stableJson(sc.parameters ?? {}) !== stableJson(old.parameters ?? {})) causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (sc.reclaimPolicy !== old.reclaimPolicy) causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (sc.volumeBindingMode !== old.volumeBindingMode) causes.push(invalidValue('volumeBindingMode', sc.volumeBindingMode, 'field is immutable'));
  return causes;
}
