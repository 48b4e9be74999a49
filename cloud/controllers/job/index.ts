/** The Job controller: pure plan, thin apply, and the loop that runs them. */
export { jobController } from './controller.js';
export { planJob, type JobAction, type JobPlanInput } from './plan.js';
export { podFromJob } from './apply.js';
