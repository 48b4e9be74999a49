import type { ContainerStateWaiting } from '../../shared/types.js';
import type { PodAction } from './plan-pods.js';

/** What a pod's volumes say of it this sync (edge/volumes/volume-manager.ts). */
export interface VolumeReadiness {
  ready: boolean;
  error?: string;
}

/**
 * The plan without the starts of pods that have no sandbox yet and need the pod network: while
 * the network plugin is not ready the kubelet creates no sandbox, except a hostNetwork pod's.
 * Pods with a sandbox keep theirs, address included, and restart their containers in it.
 */
export function withoutNewPodNetworks(actions: PodAction[]): PodAction[] {
  const sandboxless = new Set(actions.flatMap((a) => (a.type === 'runSandbox' && a.pod.spec.hostNetwork !== true ? [a.pod.metadata.uid ?? ''] : [])));
  return actions.filter((a) => !((a.type === 'runSandbox' || a.type === 'startContainer') && sandboxless.has(a.pod.metadata.uid ?? '')));
}

/** The plan without the starts of pods whose volumes are not all set up: kubelet waits for them before it creates the sandbox. */
export function withoutUnmounted(actions: PodAction[], volumes: ReadonlyMap<string, VolumeReadiness>): PodAction[] {
  return actions.filter((a) => !((a.type === 'runSandbox' || a.type === 'startContainer') && volumes.get(a.pod.metadata.uid ?? '')?.ready === false));
}

/**
 * Why containers wait that the runtime cannot say: a container whose config could not be built
 * (CreateContainerConfigError, until a start succeeds), a pod whose sandbox waits for the pod
 * network (ContainerCreating, with the kubelet's "network is not ready" message), a pod whose
 * volumes are not set up (ContainerCreating, with the mount error).
 */
export class ContainerWaits {
  private readonly configErrors = new Map<string, string>();

  /** A start of the container failed for `message`, or (undefined) succeeded. */
  configResult(podUid: string, container: string, message: string | undefined): void {
    if (message === undefined) this.configErrors.delete(`${podUid}/${container}`);
    else this.configErrors.set(`${podUid}/${container}`, message);
  }

  /** Forgets the pods not in `held`. */
  keepOnly(held: ReadonlySet<string>): void {
    for (const key of this.configErrors.keys()) if (!held.has(key.slice(0, key.indexOf('/')))) this.configErrors.delete(key);
  }

  /** How a container of the pod that is not running waits, beyond what the runtime says; undefined: as the runtime says. */
  waitingOf(podUid: string, volumes: VolumeReadiness | undefined, network?: string): (container: string) => ContainerStateWaiting | undefined {
    return (container) => {
      const message = this.configErrors.get(`${podUid}/${container}`);
      if (message !== undefined) return { reason: 'CreateContainerConfigError', message };
      if (network !== undefined) return { message: network };
      return volumes?.ready === false && volumes.error ? { message: volumes.error } : undefined;
    };
  }
}
