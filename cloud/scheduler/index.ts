export { startScheduler, type SchedulerHandle, type SchedulerOptions } from './scheduler.js';
export { pickNode, fits, unschedulableMessage, type Pick } from './pick-node.js';
export { PodPlacement, podRequests, type NodeUsage, type PodRequests } from './pod-placement.js';
export { quantityMilliValue, quantityValue } from './quantity.js';
