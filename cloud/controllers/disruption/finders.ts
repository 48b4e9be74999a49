import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import type { StatefulSet } from '../../../shared/statefulset-types.js';
import type { Pod } from '../../../shared/types.js';
import { controllerRefOf } from '../controller-ref.js';
import type { ObjectCache } from '../object-cache.js';
import type { PodController } from './plan.js';

export interface WorkloadCaches {
  replicaSets: ObjectCache<ReplicaSet>;
  deployments: ObjectCache<Deployment>;
  statefulSets: ObjectCache<StatefulSet>;
}

/**
 * The disruption controller's finders: a pod's controller and its scale. A ReplicaSet owned by a
 * Deployment counts as that Deployment; a ReplicaSet of its own and a StatefulSet as themselves.
 * Any other controller (a DaemonSet, a Job) has no scale here, so it is not found (kube reads
 * the scale subresource of other kinds; kedge's other kinds have none).
 */
export function controllerFinder(caches: WorkloadCaches): (pod: Pod) => PodController | undefined {
  return (pod) => {
    const ref = controllerRefOf(pod);
    const namespace = pod.metadata.namespace;
    if (!ref) return undefined;
    if (ref.kind === 'StatefulSet') {
      const sts = caches.statefulSets.get(namespace, ref.name);
      return sts?.metadata.uid === ref.uid ? { uid: ref.uid, replicas: sts.spec.replicas ?? 1 } : undefined;
    }
    if (ref.kind !== 'ReplicaSet') return undefined;
    const rs = caches.replicaSets.get(namespace, ref.name);
    if (rs?.metadata.uid !== ref.uid) return undefined;
    const owner = controllerRefOf(rs);
    if (owner?.kind === 'Deployment') {
      const deployment = caches.deployments.get(namespace, owner.name);
      return deployment?.metadata.uid === owner.uid ? { uid: owner.uid, replicas: deployment.spec.replicas ?? 1 } : undefined;
    }
    return { uid: ref.uid, replicas: rs.spec.replicas ?? 1 };
  };
}
