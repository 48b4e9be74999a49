import type { Pod } from '../../shared/types.js';
import type { Allocatable } from '../edged/resource-field.js';
import type { PodObjects } from './pod-objects.js';
import { pluginFor, VOLUME_PLUGINS } from './plugins.js';
import type { VolumeHost, VolumePlugin } from './volume-plan.js';

/** A pod's volumes after a sync. */
export interface PodVolumes {
  /** Every volume was set up (at least once): the pod's containers may start. */
  ready: boolean;
  /** What failed, as kube's FailedMount says; the first failing volume. */
  error?: string;
  /** Each volume's host path, by volume name (those set up). */
  paths: ReadonlyMap<string, string>;
}

export interface VolumeManagerDeps {
  /** Where a pod's volumes are materialised (on disk for process pods, in memory for simulated ones). */
  hostFor: (pod: Pod) => VolumeHost;
  /** Every host, for removing what gone pods left. */
  hosts: readonly VolumeHost[];
  allocatable?: Allocatable;
  plugins?: readonly VolumePlugin[];
}

const NO_VOLUMES: PodVolumes = { ready: true, paths: new Map() };

/**
 * kubelet's volume manager, run on every pod sync: sets up each volume of each pod (once for
 * emptyDir, hostPath and claims; every time for configMap, secret, downwardAPI and projected,
 * whose content follows their objects), and removes the volumes of pods that are gone.
 */
export class VolumeManager {
  private readonly mounted = new Map<string, Map<string, string>>();

  constructor(private readonly deps: VolumeManagerDeps) {}

  /**
   * Sets up the volumes of each pod from `objects` (the ConfigMaps, Secrets, … the edge holds
   * now). Only pods with volumes are in the result: one without has nothing to wait for.
   */
  async setUpPods(pods: readonly Pod[], objects: PodObjects): Promise<Map<string, PodVolumes>> {
    const out = new Map<string, PodVolumes>();
    const withVolumes = pods.filter((pod) => (pod.spec.volumes?.length ?? 0) > 0);
    await Promise.all(withVolumes.map(async (pod) => out.set(pod.metadata.uid ?? '', await this.setUpPod(pod, objects))));
    return out;
  }

  async setUpPod(pod: Pod, objects: PodObjects): Promise<PodVolumes> {
    const volumes = pod.spec.volumes ?? [];
    if (volumes.length === 0) return NO_VOLUMES;
    const podUid = pod.metadata.uid ?? '';
    const paths = this.mounted.get(podUid) ?? new Map<string, string>();
    this.mounted.set(podUid, paths);
    const host = this.deps.hostFor(pod);
    const context = { pod, objects, ...(this.deps.allocatable ? { allocatable: this.deps.allocatable } : {}) };
    let error: string | undefined;
    for (const volume of volumes) {
      try {
        const plugin = pluginFor(volume, this.deps.plugins ?? VOLUME_PLUGINS);
        if (paths.has(volume.name) && !plugin.remount) continue;
        paths.set(volume.name, await host.setUp({ podUid, plugin: plugin.name, name: volume.name }, plugin.plan(volume, context)));
      } catch (err) {
        // A volume set up before keeps what it held (kube too leaves a mounted volume as it was).
        error ??= `MountVolume.SetUp failed for volume "${volume.name}" : ${(err as Error).message}`;
      }
    }
    return { ready: volumes.every((v) => paths.has(v.name)), ...(error ? { error } : {}), paths };
  }

  /** Removes the volumes (and container roots) of every pod not in `keep`. */
  async cleanUp(keep: ReadonlySet<string>): Promise<void> {
    for (const host of this.deps.hosts) {
      for (const uid of await host.podUids()) {
        if (keep.has(uid)) continue;
        await host.tearDownPod(uid);
        this.mounted.delete(uid);
      }
    }
  }
}
