import type { CronJob, Job } from '../../../shared/batch-types.js';
import { humanDuration } from '../../client/human-duration.js';
import { wideCells, wideColumns } from './apps-printers.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';
import { age } from '../rest/tables.js';

/** `kubectl get jobs` / `cronjobs` columns, as kube-apiserver 1.32's printJob and printCronJob. */

const podCountSelector = 'A label query over pods that should match the pod count.';

const hasCondition = (job: Job, type: string): boolean => job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/** The STATUS cell: the first of these that holds. */
export function jobStatusCell(job: Job): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  for (const type of ['Suspended', 'FailureTarget', 'SuccessCriteriaMet']) if (hasCondition(job, type)) return type;
  return 'Running';
}

function completionsCell(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions !== undefined && job.spec.completions !== null) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(job: Job, now: number): string {
  const start = job.status?.startTime;
  if (!start) return '';
  const end = job.status?.completionTime;
  return end ? humanDuration(Date.parse(end) - Date.parse(start)) : age(start, now);
}

export const jobPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'Status of the job.' },
    { name: 'Completions', type: 'string', description: 'The desired number of successfully finished pods the job should be run with.' },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.' },
    ageColumn,
    ...wideColumns(podCountSelector),
  ],
  cells(obj, now) {
    const job = obj as Job;
    return [
      job.metadata.name ?? '', jobStatusCell(job), completionsCell(job), durationCell(job, now),
      age(job.metadata.creationTimestamp, now), ...wideCells(job.spec?.template, job.spec?.selector),
    ];
  },
};

export const cronJobPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Schedule', type: 'string', description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.' },
    { name: 'Timezone', type: 'string', description: 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.' },
    { name: 'Suspend', type: 'boolean', description: 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.' },
    { name: 'Active', type: 'integer', description: 'A list of pointers to currently running jobs.' },
    { name: 'Last Schedule', type: 'string', description: 'Information when was the last time the job was successfully scheduled.' },
    ageColumn,
    ...wideColumns(podCountSelector),
  ],
  cells(obj, now) {
    const cj = obj as CronJob;
    const suspend = cj.spec?.suspend;
    return [
      cj.metadata.name ?? '', cj.spec?.schedule ?? '', cj.spec?.timeZone ?? '<none>',
      suspend === undefined ? '<unset>' : suspend ? 'True' : 'False',
      cj.status?.active?.length ?? 0,
      cj.status?.lastScheduleTime ? age(cj.status.lastScheduleTime, now) : '<none>',
      age(cj.metadata.creationTimestamp, now),
      ...wideCells(cj.spec?.jobTemplate?.spec?.template, cj.spec?.jobTemplate?.spec?.selector),
    ];
  },
};
