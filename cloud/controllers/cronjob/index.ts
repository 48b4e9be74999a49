/** The CronJob controller: pure plan, thin apply, and the loop that runs them. */
export { cronJobController } from './controller.js';
export { planCronJob, jobName, jobFromTemplate, type CronJobAction, type CronJobPlanInput } from './plan.js';
export { scheduleTimes, MANY_MISSED } from './schedule-times.js';
export { cronClock } from './cron-clock.js';
