import type { Subscription } from 'rxjs';
import { objectKey, type Pod } from '../../shared/types.js';
import type { Informers } from '../informer/shared-informers.js';
import type { PodStartupTrace } from '../../shared/trace/pod-startup-trace.js';

/** Running with every container started: the end of Kubernetes' pod startup SLO. */
export const podStarted = (pod: Pod): boolean =>
  pod.status?.phase === 'Running' && (pod.status.containerStatuses ?? []).every((c) => c.started !== false && c.state?.running !== undefined);

/** Marks created, bound and running as the cloud's pod informer sees each pod reach them. */
export function followPodStartups(informers: Informers, trace: PodStartupTrace): Subscription {
  return informers.of<Pod>({ resource: 'pods' }).subscribe((event) => {
    if (event.type === 'SYNCED' || event.type === 'DELETED') return;
    const pod = event.object;
    const key = objectKey(pod.metadata);
    trace.mark(key, 'created');
    if (pod.spec.nodeName) trace.mark(key, 'bound');
    if (podStarted(pod)) trace.mark(key, 'running');
  });
}
