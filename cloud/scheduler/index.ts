export { startScheduler, type SchedulerHandle, type SchedulerOptions } from './scheduler.js';
export { pickNode, fits } from './pick-node.js';
