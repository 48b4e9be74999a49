import type { Job } from '../../../shared/batch-types.js';
import type { Pod } from '../../../shared/types.js';

/** Objects for Job plan tests: times are seconds after T0. */
export const T0 = Date.UTC(2026, 0, 1);
export const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
export const TRACKING = 'batch.kubernetes.io/job-tracking';

export function job(spec: Partial<Job['spec']> = {}, status?: Job['status']): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi', namespace: 'default', uid: 'job-uid', resourceVersion: '10', creationTimestamp: at(0) },
    spec: {
      completions: 1, parallelism: 1, backoffLimit: 6, podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'job-uid' } },
      template: { metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'job-uid' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
      ...spec,
    },
    ...(status ? { status } : {}),
  };
}

export interface PodOptions {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  tracked?: boolean;
  deleting?: boolean;
  finishedAt?: number;
  ready?: boolean;
  restarts?: number;
}

export function pod(name: string, o: PodOptions = {}): Pod {
  const p: Pod = {
    metadata: {
      name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5', creationTimestamp: at(0),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: 'job-uid', controller: true }],
      ...(o.tracked === false ? {} : { finalizers: [TRACKING] }),
      ...(o.deleting ? { deletionTimestamp: at(1) } : {}),
    },
    spec: { nodeName: 'edge-1', containers: [{ name: 'main' }] },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: o.ready ? 'True' : 'False' }],
      containerStatuses: [{
        name: 'main', ready: Boolean(o.ready), restartCount: o.restarts ?? 0, image: '', imageID: '', lastState: {},
        state: o.finishedAt === undefined ? { running: {} } : { terminated: { exitCode: o.phase === 'Failed' ? 1 : 0, finishedAt: at(o.finishedAt) } },
      }],
    },
  };
  return p;
}
