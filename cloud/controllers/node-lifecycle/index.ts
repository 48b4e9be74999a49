export { createNodeLifecycleController, nodeLifecycleController, type NodeLifecycleOptions } from './controller.js';
export { planNodeHealth, readyIsControllerVerdict, isSilent, type NodeHealthAction, type NodeHealthPlan } from './node-health.js';
export { planPodsNotReady, type PodNotReadyAction } from './pods-not-ready.js';
export { planEvictions, evictionTime, autonomyOf, type EvictionPlan } from './evictions.js';
export { planTaintManager, taintsFirstSeen, type TaintManagerAction } from './taint-manager.js';
export { sightAfterFailure, sightOnRelist, type Sight } from './sight.js';
export { observeProbe, leaseHeartbeat, readyConditionHeartbeat, type HeartbeatSource, type NodeProbe } from './heartbeat.js';
export { parseGoDuration } from '../../../shared/go-duration.js';
export { AUTONOMY_DURATION_ANNOTATION, NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY, toleratesTaint } from './taints.js';
