import type { ApiResource } from '../client/api-resource.js';
import type { Controller } from './controller.js';
import { daemonSetController } from './daemonset/index.js';
import { deploymentController } from './deployment/index.js';
import { endpointsController } from './endpoints/index.js';
import { endpointSliceController } from './endpointslice/index.js';
import { disruptionController } from './disruption/index.js';
import { cronJobController } from './cronjob/index.js';
import { jobController } from './job/index.js';
import { garbageCollector } from './garbage-collector/index.js';
import { localPathProvisioner } from './local-path/index.js';
import { namespaceController } from './namespace/index.js';
import { podGarbageCollector } from './pod-gc/index.js';
import { nodeLifecycleController } from './node-lifecycle/index.js';
import { nodeIpamController, type ClusterCidrConfig } from './nodeipam/index.js';
import { persistentVolumeController } from './persistentvolume/index.js';
import { replicaSetController } from './replicaset/index.js';
import { rootCaCertPublisher, serviceAccountController } from './serviceaccount/index.js';
import { statefulSetController } from './statefulset/index.js';

/**
 * The controller-manager's loops, in start order; the garbage and namespace collectors work
 * over every kind in `resources`; node IPAM cuts `podNetwork` into node ranges; the root CA
 * publisher puts `rootCa` (the cluster's CA, once known) into every namespace.
 */
export function defaultControllers(resources: readonly ApiResource[], podNetwork: ClusterCidrConfig, rootCa: () => string | undefined = () => undefined): Controller[] {
  return [
    nodeLifecycleController,
    nodeIpamController(podNetwork),
    deploymentController(),
    replicaSetController(),
    daemonSetController(),
    statefulSetController(),
    jobController,
    cronJobController,
    endpointsController,
    endpointSliceController,
    disruptionController,
    garbageCollector([...resources]),
    namespaceController([...resources]),
    podGarbageCollector,
    persistentVolumeController,
    localPathProvisioner,
    serviceAccountController,
    rootCaCertPublisher(rootCa),
  ];
}

export type { Controller, ControllerContext, RunningController } from './controller.js';
