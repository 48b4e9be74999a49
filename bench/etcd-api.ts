import type { ApiClient } from '../cloud/client/client.js';
import type { Pod } from '../shared/types.js';
import { pacedCalls } from './paced-calls.js';
import { benchPod } from './scale-cluster.js';
import { percentile, round } from './stats.js';

const ns = { resource: 'pods', namespace: 'default' };
/** No scheduler takes these pods (kube-scheduler only binds pods naming it), so only the calls made here reach the store. */
const UNSCHEDULED = 'kedge-bench-none';
const IN_FLIGHT = 64;

export interface ApiRoundOptions {
  pods: number;
  /** Pace of the creates, then of the updates, then of the deletes. */
  callsPerSecond: number;
  /** Lists of the namespace, one at a time, while it holds the round's pods. */
  lists: number;
}

export interface ApiRoundResult {
  /** p99 of the round's creates, updates and deletes, ms. */
  mutatingP99Ms: number;
  listP99Ms: number;
}

const unscheduledPod = (name: string): Pod => {
  const pod = benchPod(name);
  return { ...pod, spec: { ...pod.spec, schedulerName: UNSCHEDULED } };
};

const relabelled = (pod: Pod): Pod => ({ ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, round: 'updated' } } });

/** One round through the real HTTP API: `pods` paced creates, lists, updates (PUT) and deletes of the same pods. */
export async function apiRound(api: ApiClient, tag: string, o: ApiRoundOptions): Promise<ApiRoundResult> {
  const names = Array.from({ length: o.pods }, (_, i) => `${tag}-${i}`);
  const created: Pod[] = [];
  const creates = await pacedCalls(o.pods, IN_FLIGHT, async (i) => (created[i] = await api.create(ns, unscheduledPod(names[i]!))), o.callsPerSecond);
  const lists = await pacedCalls(o.lists, 1, () => api.list(ns));
  const updates = await pacedCalls(o.pods, IN_FLIGHT, (i) => api.replace({ ...ns, name: names[i] }, relabelled(created[i]!)), o.callsPerSecond);
  const deletes = await pacedCalls(o.pods, IN_FLIGHT, (i) => api.delete({ ...ns, name: names[i] }), o.callsPerSecond);
  return { mutatingP99Ms: round(percentile([...creates, ...updates, ...deletes], 99)), listP99Ms: round(percentile(lists, 99)) };
}
