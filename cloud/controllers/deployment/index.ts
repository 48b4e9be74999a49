/** The Deployment controller: rollouts through ReplicaSets. */
export { deploymentController, type DeploymentControllerOptions } from './controller.js';
export { planDeployment, type DeploymentAction, type DeploymentPlanInput } from './plan.js';
export { podTemplateHash } from './hash.js';
export { resolveFenceposts, maxSurge, maxUnavailable } from './surge.js';
