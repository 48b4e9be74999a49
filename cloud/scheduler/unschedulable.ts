import type { Clock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { Pod, PodCondition } from '../../shared/types.js';
import type { ApiClient } from '../client/client.js';
import type { EventRecorder } from '../controllers/events.js';

/**
 * Telling a pod that no node fits it, as kube-scheduler does: PodScheduled=False with reason
 * Unschedulable and the per-node message, plus a Warning FailedScheduling Event. Written only
 * when the message changes, so the retries of a pod that stays unschedulable write nothing.
 */

/**
 * The merge patch of pods/status that sets the condition, or undefined when the pod already
 * says so. A merge patch replaces the whole list, so the other conditions go with it; the
 * resourceVersion makes the apiserver refuse the patch if they changed meanwhile. Pure.
 */
export function unschedulablePatch(pod: Pod, message: string, now: number): { metadata: { resourceVersion?: string }; status: { conditions: PodCondition[] } } | undefined {
  const conditions = pod.status?.conditions ?? [];
  const current = conditions.find((c) => c.type === 'PodScheduled');
  if (current?.status === 'False' && current.reason === 'Unschedulable' && current.message === message) return undefined;
  const condition: PodCondition = {
    type: 'PodScheduled',
    status: 'False',
    lastProbeTime: null,
    // The time of the transition to False is kept while the message changes.
    lastTransitionTime: current?.status === 'False' && current.lastTransitionTime ? current.lastTransitionTime : new Date(now).toISOString(),
    reason: 'Unschedulable',
    message,
  };
  return {
    metadata: { resourceVersion: pod.metadata.resourceVersion },
    status: { conditions: [...conditions.filter((c) => c.type !== 'PodScheduled'), condition] },
  };
}

export interface UnschedulableReporterDeps {
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  events?: EventRecorder;
}

export type ReportUnschedulable = (key: string, pod: Pod, message: string) => Promise<void> | undefined;

export function unschedulableReporter({ api, clock, logger, events }: UnschedulableReporterDeps): ReportUnschedulable {
  /** Messages being written, so a pick made before the watch shows the write does not repeat it. */
  const writing = new Map<string, string>();
  return (key, pod, message) => {
    const patch = unschedulablePatch(pod, message, clock.now());
    if (!patch || writing.get(key) === message) return undefined;
    const { namespace = 'default', name = '' } = pod.metadata;
    writing.set(key, message);
    return (async () => {
      try {
        await api.patch({ resource: 'pods', namespace, name, subresource: 'status' }, patch, 'merge');
        events?.record(pod, 'Warning', 'FailedScheduling', message);
      } catch (err) {
        // The next attempt (the pod is in backoff) writes it again if it is still due.
        if (!isKedgeError(err, 'NotFound')) logger.info('could not set PodScheduled', { pod: key, error: String(err) });
      } finally {
        if (writing.get(key) === message) writing.delete(key);
      }
    })();
  };
}
