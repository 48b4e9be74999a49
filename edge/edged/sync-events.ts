import type { Pod } from '../../shared/types.js';
import { containerRef, podRef } from '../events/event-types.js';
import type { KubeletEventLog } from '../events/kubelet-event-log.js';
import { messages, REASONS } from '../events/kubelet-events.js';
import type { PodVolumes } from '../volumes/volume-manager.js';
import type { PodAction } from './plan-pods.js';

/** FailedMount, once per error of a pod's volumes, until they are all set up. */
export function recordMountFailures(events: KubeletEventLog, pods: readonly Pod[], volumes: ReadonlyMap<string, PodVolumes>): void {
  for (const pod of pods) {
    const uid = pod.metadata.uid ?? '';
    const v = volumes.get(uid);
    if (v?.error === undefined) events.clear(`${uid}/mount`);
    else events.recordOnce(`${uid}/mount`, v.error, podRef(pod), 'Warning', REASONS.failedMount, v.error);
  }
}

/** BackOff, once for each wait of a crashed container (each wait ends at its own time). */
export function recordBackOffs(events: KubeletEventLog, actions: readonly PodAction[]): void {
  for (const a of actions) {
    if (a.type !== 'backOff') continue;
    const { name = '', namespace = 'default', uid = '' } = a.pod.metadata;
    const init = (a.pod.spec.initContainers ?? []).includes(a.container);
    const message = messages.backOff(a.container.name, name, namespace, uid);
    events.recordOnce(`${uid}/${a.container.name}/backoff`, String(a.until), containerRef(a.pod, a.container.name, init), 'Warning', REASONS.backOff, message);
  }
}
