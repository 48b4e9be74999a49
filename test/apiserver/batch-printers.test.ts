import { describe, expect, it } from 'vitest';
import { cronJobPrinter, jobPrinter } from '../../cloud/apiserver/kinds/batch-printers.js';
import type { CronJob, Job } from '../../shared/batch-types.js';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const cond = (type: string) => ({ type, status: 'True' as const });

function job(spec: Partial<Job['spec']>, status: Job['status'] = {}, deleting = false): Job {
  return {
    metadata: { name: 'j', creationTimestamp: '2026-01-01T00:00:00Z', ...(deleting ? { deletionTimestamp: '2026-01-01T00:59:00Z' } : {}) },
    spec: { template: { spec: { containers: [{ name: 'a', image: 'busybox' }] } }, ...spec },
    status,
  };
}

describe('printJob cells', () => {
  it.each([
    ['Complete wins', job({ completions: 1 }, { conditions: [cond('SuccessCriteriaMet'), cond('Complete')], succeeded: 1, startTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T00:02:30Z' }), ['Complete', '1/1', '2m30s']],
    ['Failed', job({ completions: 1 }, { conditions: [cond('FailureTarget'), cond('Failed')] }), ['Failed', '0/1', '']],
    ['Terminating', job({ completions: 1 }, {}, true), ['Terminating', '0/1', '']],
    ['Suspended', job({ completions: 3 }, { conditions: [cond('Suspended')] }), ['Suspended', '0/3', '']],
    ['FailureTarget', job({ completions: 1 }, { conditions: [cond('FailureTarget')] }), ['FailureTarget', '0/1', '']],
    ['SuccessCriteriaMet', job({ completions: 2 }, { conditions: [cond('SuccessCriteriaMet')], succeeded: 2 }), ['SuccessCriteriaMet', '2/2', '']],
    ['Running, no completions, parallelism 3', job({ parallelism: 3 }, { startTime: '2026-01-01T00:59:50Z' }), ['Running', '0/1 of 3', '10s']],
  ])('%s', (_name, j, [status, completions, duration]) => {
    expect(jobPrinter.cells(j, NOW).slice(1, 4)).toEqual([status, completions, duration]);
  });
});

describe('printCronJob cells', () => {
  it('shows the schedule, time zone, suspend, active count and last schedule', () => {
    const cj: CronJob = {
      metadata: { name: 'c', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { schedule: '@hourly', timeZone: 'UTC', suspend: true, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: 'busybox' }] } } } } },
      status: { active: [{ name: 'c-1' }], lastScheduleTime: '2026-01-01T00:59:00Z' },
    };
    expect(cronJobPrinter.cells(cj, NOW)).toEqual(['c', '@hourly', 'UTC', 'True', 1, '60s', '60m', 'a', 'busybox', '<none>']);
  });
});
