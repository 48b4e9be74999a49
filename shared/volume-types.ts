/**
 * core/v1 volume shapes: a pod's `spec.volumes`, a container's `volumeMounts`, and the
 * `volumeMounts` a container status reports (VolumeMountStatus). Only the sources kedge's edge
 * sets up are typed; any other source is kept as sent.
 */

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface ConfigMapVolumeSource {
  name?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

export interface SecretVolumeSource {
  secretName?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

export interface EmptyDirVolumeSource {
  /** "" (the node's disk) or "Memory" (tmpfs in kube). */
  medium?: string;
  sizeLimit?: string;
}

/** "" (no check), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice, BlockDevice. */
export type HostPathType = '' | 'DirectoryOrCreate' | 'Directory' | 'FileOrCreate' | 'File' | 'Socket' | 'CharDevice' | 'BlockDevice';

export interface HostPathVolumeSource {
  path: string;
  type?: HostPathType;
}

export interface ObjectFieldSelector {
  fieldPath: string;
  apiVersion?: string;
}

export interface ResourceFieldSelector {
  resource: string;
  containerName?: string;
  divisor?: string;
}

export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

export interface DownwardAPIVolumeSource {
  items?: DownwardAPIVolumeFile[];
  defaultMode?: number;
}

export interface ServiceAccountTokenProjection {
  audience?: string;
  expirationSeconds?: number;
  path: string;
}

export interface VolumeProjection {
  configMap?: Omit<ConfigMapVolumeSource, 'defaultMode'>;
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  serviceAccountToken?: ServiceAccountTokenProjection;
}

export interface ProjectedVolumeSource {
  sources?: VolumeProjection[];
  defaultMode?: number;
}

export interface PersistentVolumeClaimVolumeSource {
  claimName: string;
  readOnly?: boolean;
}

export interface Volume {
  name: string;
  configMap?: ConfigMapVolumeSource;
  secret?: SecretVolumeSource;
  emptyDir?: EmptyDirVolumeSource;
  hostPath?: HostPathVolumeSource;
  downwardAPI?: DownwardAPIVolumeSource;
  projected?: ProjectedVolumeSource;
  persistentVolumeClaim?: PersistentVolumeClaimVolumeSource;
  [source: string]: unknown;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
}

/** What a container status says of one of its mounts (status.containerStatuses[].volumeMounts). */
export interface VolumeMountStatus {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
