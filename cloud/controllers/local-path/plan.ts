import type { ConfigMap } from '../../../shared/config-types.js';
import {
  ANN_PROVISIONED_BY,
  ANN_SELECTED_NODE,
  LOCAL_PATH_PROVISIONER,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../../shared/storage-types.js';

/**
 * The local-path provisioner's decisions (rancher/local-path-provisioner v0.0.37's
 * provisionFor and the external-provisioner library's shouldProvision/shouldDelete), pure.
 */

export const DEFAULT_BASE_PATH = '/opt/local-path-provisioner';
export const CONFIG_NAMESPACE = 'local-path-storage';
export const CONFIG_NAME = 'local-path-config';
/** The nodePathMap entry that applies to every node not listed by name. */
export const DEFAULT_NODE_ENTRY = 'DEFAULT_PATH_FOR_NON_LISTED_NODES';
export const ANN_LOCAL_SELECTED_NODE = 'local.path.provisioner/selected-node';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** The volume name the provisioner gives a claim's volume (the external-provisioner library's `pvc-<uid>`). */
export const volumeNameFor = (claim: PersistentVolumeClaim): string => `pvc-${claim.metadata.uid ?? ''}`;

/**
 * A claim needs a volume made: it is of a class this provisioner serves, not bound nor being
 * deleted, the scheduler picked its node, and its volume does not exist yet.
 */
export function needsVolume(claim: PersistentVolumeClaim, storageClass: StorageClass | undefined, existing: PersistentVolume | undefined): boolean {
  if (!storageClass || storageClass.provisioner !== LOCAL_PATH_PROVISIONER || existing) return false;
  if (claim.metadata.deletionTimestamp || claim.spec.volumeName) return false;
  return Boolean(claim.metadata.annotations?.[ANN_SELECTED_NODE]);
}

/** A volume this provisioner made whose claim is gone and whose policy is Delete: the provisioner deletes it. */
export function shouldDelete(volume: PersistentVolume): boolean {
  return (
    volume.metadata.annotations?.[ANN_PROVISIONED_BY] === LOCAL_PATH_PROVISIONER &&
    volume.spec.persistentVolumeReclaimPolicy === 'Delete' &&
    volume.status?.phase === 'Released' &&
    !volume.metadata.deletionTimestamp
  );
}

/**
 * The base directory for a node, from the ConfigMap's `config.json` nodePathMap as upstream
 * reads it (the node's own entry, else DEFAULT_PATH_FOR_NON_LISTED_NODES; the first path of
 * it); DEFAULT_BASE_PATH when there is no ConfigMap or it says nothing usable.
 */
export function basePathFor(config: ConfigMap | undefined, node: string): string {
  const text = config?.data?.['config.json'];
  if (!text) return DEFAULT_BASE_PATH;
  try {
    const parsed = JSON.parse(text) as { nodePathMap?: { node?: string; paths?: string[] }[] };
    const map = Array.isArray(parsed.nodePathMap) ? parsed.nodePathMap : [];
    const entry = map.find((e) => e?.node === node) ?? map.find((e) => e?.node === DEFAULT_NODE_ENTRY);
    const path = entry?.paths?.[0];
    return typeof path === 'string' && path.startsWith('/') ? path.replace(/\/+$/, '') || '/' : DEFAULT_BASE_PATH;
  } catch {
    return DEFAULT_BASE_PATH;
  }
}

/** The PersistentVolume upstream's provisionFor makes: a hostPath directory on the picked node, pinned there by node affinity. */
export function localPathVolume(claim: PersistentVolumeClaim, storageClass: StorageClass, basePath: string): PersistentVolume {
  const node = claim.metadata.annotations?.[ANN_SELECTED_NODE] ?? '';
  const name = volumeNameFor(claim);
  const { namespace = '', name: claimName = '', uid, resourceVersion } = claim.metadata;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [ANN_LOCAL_SELECTED_NODE]: node, [ANN_PROVISIONED_BY]: LOCAL_PATH_PROVISIONER } },
    spec: {
      persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
      accessModes: claim.spec.accessModes,
      volumeMode: 'Filesystem',
      capacity: { storage: claim.spec.resources?.requests?.storage ?? '0' },
      hostPath: { path: `${basePath === '/' ? '' : basePath}/${name}_${namespace}_${claimName}`, type: 'DirectoryOrCreate' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: HOSTNAME_LABEL, operator: 'In', values: [node] }] }] } },
      claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace, name: claimName, uid, resourceVersion },
      storageClassName: storageClass.metadata.name,
      ...(storageClass.mountOptions ? { mountOptions: storageClass.mountOptions } : {}),
    },
  };
}
