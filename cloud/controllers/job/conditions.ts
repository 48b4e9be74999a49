import type { JobCondition } from '../../../shared/batch-types.js';
import { timestamp } from '../../client/object-meta.js';

/** Job conditions, reasons and messages as kube 1.32's Job controller writes them. */

export const COMPLETE_REASON = 'CompletionsReached';
export const COMPLETE_MESSAGE = 'Reached expected number of succeeded pods';
export const BACKOFF_REASON = 'BackoffLimitExceeded';
export const BACKOFF_MESSAGE = 'Job has reached the specified backoff limit';
export const DEADLINE_REASON = 'DeadlineExceeded';
export const DEADLINE_MESSAGE = 'Job was active longer than specified deadline';

export function newCondition(type: string, status: JobCondition['status'], reason: string, message: string, now: number): JobCondition {
  const at = timestamp(now);
  return { type, status, lastProbeTime: at, lastTransitionTime: at, reason, message };
}

export function findCondition(conditions: readonly JobCondition[] | undefined, type: string): JobCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

export const isTrue = (conditions: readonly JobCondition[] | undefined, type: string): boolean => findCondition(conditions, type)?.status === 'True';

/** ensureJobConditionStatus: sets `type` to `status` unless it already is; whether anything changed. */
export function ensureCondition(conditions: readonly JobCondition[], next: JobCondition): { conditions: JobCondition[]; changed: boolean } {
  const current = findCondition(conditions, next.type);
  if (current) {
    if (current.status === next.status && current.reason === next.reason && current.message === next.message) return { conditions: [...conditions], changed: false };
    return { conditions: conditions.map((c) => (c === current ? next : c)), changed: true };
  }
  if (next.status === 'False') return { conditions: [...conditions], changed: false };
  return { conditions: [...conditions, next], changed: true };
}

/** Complete or Failed is there: the Job is finished and nothing more happens to it. */
export function finishedCondition(conditions: readonly JobCondition[] | undefined): JobCondition | undefined {
  return conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}
