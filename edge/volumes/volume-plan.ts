import type { Pod, Volume } from '../../shared/types.js';
import type { HostPathType } from '../../shared/volume-types.js';
import type { Allocatable } from '../edged/resource-field.js';
import type { PodObjects } from './pod-objects.js';

/** One file of a volume's payload: its path inside the volume, its bytes and its mode. */
export interface PlannedFile {
  path: string;
  content: Buffer;
  mode: number;
}

/**
 * What a volume should contain, decided purely by its plugin; a VolumeHost makes it so.
 * `files`: a payload written as kubelet's AtomicWriter does (configMap, secret, downwardAPI,
 * projected). `emptyDir`: a directory of the pod's own. `hostPath`: a path of the host (under
 * the edge's host root), checked or created as its type says.
 */
export type VolumePlan =
  | { type: 'files'; files: PlannedFile[] }
  | { type: 'emptyDir'; medium: string; sizeLimit?: string }
  | { type: 'hostPath'; path: string; hostPathType: HostPathType };

/** A volume that cannot be set up (yet): the pod waits in ContainerCreating with this message. */
export class VolumeError extends Error {}

/** What a plugin may read besides the volume: the pod, the objects the edge holds, the node's allocatable. */
export interface PluginContext {
  pod: Pod;
  objects: PodObjects;
  allocatable?: Allocatable;
}

/** One of kubelet's volume plugins: which volumes it serves, and what each should contain. */
export interface VolumePlugin {
  /** As in kubelet's pod directory: `kubernetes.io~configmap`, … */
  readonly name: string;
  /** Re-set up on every pod sync (its content follows objects that change), as kubelet's RequiresRemount. */
  readonly remount: boolean;
  canSupport(volume: Volume): boolean;
  /** Throws a VolumeError when the volume cannot be set up. */
  plan(volume: Volume, context: PluginContext): VolumePlan;
}

/** Where a volume is materialised: `<pods dir>/<podUid>/volumes/<plugin>/<name>`. */
export interface VolumeTarget {
  podUid: string;
  plugin: string;
  name: string;
}

/** Materialises volume plans (on disk, or only in memory for simulated pods). */
export interface VolumeHost {
  /** Makes the volume hold its plan; resolves to the host path containers mount. An unchanged payload writes nothing. Throws a VolumeError. */
  setUp(target: VolumeTarget, plan: VolumePlan): Promise<string>;
  /** Removes everything of the pod's (its volumes and container roots); idempotent. */
  tearDownPod(podUid: string): Promise<void>;
  /** The pods it holds anything for. */
  podUids(): Promise<string[]>;
}

export const DEFAULT_MODE = 0o644;
