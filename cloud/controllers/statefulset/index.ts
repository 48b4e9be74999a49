/** The StatefulSet controller: pods with stable names and claims, started and updated in order. */
export { statefulSetController } from './controller.js';
export { planStatefulSet, type StatefulSetAction, type StatefulSetPlanInput } from './plan.js';
