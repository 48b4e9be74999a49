/** The pod garbage collector: deletes the pods of deleted nodes. */
export { podGarbageCollector } from './controller.js';
export { planOrphans, type OrphanPlan } from './plan.js';
