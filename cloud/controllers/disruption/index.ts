export { disruptionController, DELETION_TIMEOUT_S } from './controller.js';
export { planBudgetStatus, type BudgetPlan, type ControllerOf, type PodController } from './plan.js';
export { controllerFinder } from './finders.js';
