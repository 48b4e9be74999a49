/** The ReplicaSet controller, and the pieces the Deployment controller shares with it. */
export { replicaSetController, type ReplicaSetControllerOptions } from './controller.js';
export { planReplicaSet, podFromTemplate, BURST_REPLICAS, type ReplicaSetAction, type ReplicaSetPlanInput } from './plan.js';
export { podsToDelete } from './rank.js';
export { Expectations } from './expectations.js';
