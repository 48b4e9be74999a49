import { isKedgeError, KedgeError } from '../../shared/errors.js';
import { jsonEqual } from '../../shared/json-equal.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { Node, NodeCondition, Pod, PodStatus } from '../../shared/types.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import { readyIsControllerVerdict } from '../controllers/node-lifecycle/node-health.js';

/**
 * Edge → cloud writes (KubeEdge's EdgeController upstream). The edge owns status, the cloud
 * owns spec: these only ever write the status subresource of an existing object, with
 * compare-and-set on resourceVersion, retried on Conflict. Transient failures are thrown so
 * the caller does not ack and the edge re-sends. The `api` they are given acts as the
 * reporting node (ApiServer.loopbackAsNode): what a node may write over MQTT is what its own
 * token may write over HTTP (kube's Node authorizer and NodeRestriction), not what the cloud may.
 */
const CONFLICT_RETRIES = 5;

/** Runs `attempt` again on Conflict (a compare-and-set lost to another writer), a few times. */
export async function retryOnConflict<R>(attempt: () => Promise<R>): Promise<R> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isKedgeError(err, 'Conflict') || i >= CONFLICT_RETRIES) throw err;
    }
  }
}

/**
 * [SYNC-17] A pod being deleted whose containers the edge reports all terminated: its kubelet
 * is done with it, so the cloud removes it (the kubelet's final DELETE with grace 0).
 */
export function doneTerminating(pod: Pod, status: PodStatus): boolean {
  const containers = status.containerStatuses ?? [];
  return pod.metadata.deletionTimestamp !== undefined && containers.length > 0 && containers.every((c) => c.state?.terminated !== undefined);
}

/** Gone already, or replaced under the same name (the uid precondition failed): nothing to remove. */
function ignoreGone(err: unknown): void {
  if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
}

/** What kubectl shows as the ROLES of a node the hub registered: the cloud says it, a kubelet may not (NodeRestriction). */
export const EDGE_ROLE_LABEL = 'node-role.kubernetes.io/edge';

/**
 * [SYNC-11] Registers the Node on first report (spec and labels from the edge, as the node:
 * NodeRestriction refuses labels a kubelet may not set), else writes its status. The cloud
 * (`cloud`, its own identity) then labels a Node registered here as an edge node; an edge from
 * before that claimed the label itself, so that one label is left out of what it sends.
 */
export async function writeNodeStatus(api: ApiClient, reported: Node, cloud: ApiClient): Promise<'created' | 'updated'> {
  const name = reported.metadata.name!;
  const ref = { resource: 'nodes', name };
  return retryOnConflict(async () => {
    const current = await getOrUndefined(() => api.get<Node>(ref));
    if (!current) {
      const { labels: { [EDGE_ROLE_LABEL]: _given, ...labels } = {}, annotations } = reported.metadata;
      const body: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name, labels, annotations }, spec: reported.spec ?? {}, status: reported.status ?? {} };
      try {
        const created = await api.create<Node>(ref, body);
        if (!jsonEqual(created.status ?? {}, body.status)) await api.replace<Node>({ ...ref, subresource: 'status' }, { ...created, status: body.status });
        await cloud.patch(ref, { metadata: { labels: { [EDGE_ROLE_LABEL]: '' } } });
        return 'created';
      } catch (err) {
        // Someone registered it first: try again as an update.
        throw isKedgeError(err, 'AlreadyExists') ? new KedgeError('Conflict', `node ${name} appeared meanwhile`, { cause: err }) : err;
      }
    }
    await api.replace<Node>({ ...ref, subresource: 'status' }, { ...current, status: reported.status ?? {} });
    return 'updated';
  });
}

/**
 * [SYNC-12] Writes a pod's status only to the pod with the same uid, bound to the reporting
 * node. 'ignored' when the pod is gone, replaced or bound elsewhere.
 */
export async function writePodStatus(api: ApiClient, node: string, ref: ObjectRef, status: PodStatus): Promise<'applied' | 'ignored'> {
  const podRef = { resource: 'pods', namespace: ref.namespace ?? 'default', name: ref.name };
  return retryOnConflict(async () => {
    const pod = await getOrUndefined(() => api.get<Pod>(podRef));
    if (!pod || pod.metadata.uid !== ref.uid || pod.spec.nodeName !== node) return 'ignored';
    // A re-report of what the cloud has needs no write [SYNC-15].
    if (!jsonEqual(pod.status ?? {}, status)) await api.replace<Pod>({ ...podRef, subresource: 'status' }, { ...pod, status });
    if (doneTerminating(pod, status)) await api.delete(podRef, { gracePeriodSeconds: 0, preconditions: { uid: ref.uid } }).catch(ignoreGone);
    return 'applied';
  });
}

/**
 * Whether a heartbeat is worth a write to the Node, judged from the hub's cached copy (undefined:
 * not cached, so read and decide). The node's Lease is its cheap proof of life, renewed on every
 * heartbeat; the Ready condition's lastHeartbeatTime moves only as the kubelet's does, with the
 * full status report (every `refreshMs`, kube's nodeStatusReportFrequency), or when the node
 * controller's verdict (Unknown) is to be replaced by what the edge last reported. Pure.
 */
export function heartbeatNeedsWrite(cached: Node | undefined, nowMs: number, refreshMs: number, canRestore: boolean): boolean {
  if (!cached) return true;
  if (canRestore && readyIsControllerVerdict(cached)) return true;
  const beat = Date.parse(cached.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime ?? '');
  return !(nowMs - beat < refreshMs); // also when it has no heartbeat time yet (NaN)
}

/**
 * A node's heartbeat: the Ready condition's lastHeartbeatTime becomes `now` (the cloud's
 * clock). A node not registered yet is left alone: its full status registers it. When the
 * node controller had marked the node Unknown, the heartbeat proves the edge alive and
 * unchanged since its last full report, so `reported` (those conditions) comes back.
 */
export async function touchNodeHeartbeat(api: ApiClient, name: string, now: string, reported?: readonly NodeCondition[]): Promise<void> {
  const ref = { resource: 'nodes', name };
  await retryOnConflict(async () => {
    const node = await getOrUndefined(() => api.get<Node>(ref));
    if (!node?.status?.conditions) return;
    const restore = reported !== undefined && readyIsControllerVerdict(node);
    const beat = (c: NodeCondition): NodeCondition => (c.type === 'Ready' ? { ...c, lastHeartbeatTime: now } : c);
    const conditions = restore ? reported.map((c) => ({ ...beat(c), lastTransitionTime: now })) : node.status.conditions.map(beat);
    await api.replace<Node>({ ...ref, subresource: 'status' }, { ...node, status: { ...node.status, conditions } });
  });
}
