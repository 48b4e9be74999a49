/** The DaemonSet controller: one pod per eligible node, rolled out through ControllerRevisions. */
export { daemonSetController, nodeChangeMatters } from './controller.js';
export { planDaemonSet, type DaemonSetAction, type DaemonSetPlanInput } from './plan.js';
export { daemonTolerations, nodeShouldRunDaemonPod, targetNodeOf } from './node-fit.js';
