export { startScheduler, type SchedulerHandle, type SchedulerOptions } from './scheduler.js';
export { pickNode, nodeInfo, unschedulableMessage, feasibleNodesToFind, type NodeInfo, type Pick, type PickOptions } from './pick-node.js';
export { fits, filterReasons, tolerates } from './filters.js';
export { PodPlacement, podRequests, type NodeUsage, type PodRequests } from './pod-placement.js';
export { quantityMilliValue, quantityValue } from './quantity.js';
