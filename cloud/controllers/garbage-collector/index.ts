/** The garbage collector: ownerReferences, and the orphan / foregroundDeletion finalizers. */
export { garbageCollector, collectsGarbageOf, type GarbageCollectorOptions } from './controller.js';
export { planDependent, planOwner, stateOfOwner, type GcAction, type OwnerState, type ResolvedOwner } from './plan.js';
export { OwnerGraph } from './graph.js';
export { resourceRef, type GraphEntry } from './object-ref.js';
