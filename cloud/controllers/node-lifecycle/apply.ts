import { isKedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import { objectKey, type Node, type Pod } from '../../../shared/types.js';
import type { ApiClient } from '../../client/client.js';
import type { EventRecorder } from '../events.js';
import type { NodeHealthAction } from './node-health.js';
import type { PodNotReadyAction } from './pods-not-ready.js';
import type { TaintManagerAction } from './taint-manager.js';

/** The thin apply of the node lifecycle plans: API writes and Events, nothing decided here. */
export interface ApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  logger: Logger;
}

/**
 * Writes a node's health actions in order, each with compare-and-set on the resourceVersion
 * (a Conflict means the node changed since it was planned: the caller plans again). Returns the
 * node as written.
 */
export async function applyNodeHealth(deps: ApplyDeps, node: Node, actions: readonly NodeHealthAction[]): Promise<Node> {
  const name = node.metadata.name!;
  let current = node;
  for (const action of actions) {
    if (action.type === 'writeConditions') {
      const body: Node = { ...current, status: { ...current.status, conditions: action.conditions } };
      current = await deps.api.replace<Node>({ resource: 'nodes', name, subresource: 'status' }, body);
      deps.logger.info('node stopped posting status', { node: name });
    } else if (action.type === 'writeTaints') {
      const patch = { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { taints: action.taints.length > 0 ? action.taints : null } };
      current = await deps.api.patch<Node>({ resource: 'nodes', name }, patch, 'merge');
      deps.logger.info('node taints updated', { node: name, taints: action.taints.map((t) => `${t.key}:${t.effect}`) });
    } else {
      deps.events.record(current, action.eventType, action.reason, action.message);
    }
  }
  return current;
}

/** Runs `each` over all items; NotFound means gone (done); the first other failure is thrown at the end. */
async function forEachTolerant<T>(items: readonly T[], each: (item: T) => Promise<void>, ignore: (err: unknown) => boolean): Promise<void> {
  let failure: unknown;
  for (const item of items) {
    try {
      await each(item);
    } catch (err) {
      if (!ignore(err)) failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
}

/** Writes Ready=False into each pod's status (compare-and-set) and says why on the pod. */
export async function applyPodsNotReady(deps: ApplyDeps, actions: readonly PodNotReadyAction[]): Promise<void> {
  await forEachTolerant(
    actions,
    async ({ pod, status }) => {
      const { namespace, name } = pod.metadata;
      await deps.api.replace<Pod>({ resource: 'pods', namespace, name, subresource: 'status' }, { ...pod, status });
      deps.events.record(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
    },
    (err) => isKedgeError(err, 'NotFound'),
  );
}

/**
 * Deletes each pod through the API, only if it is still the same pod (uid precondition): a pod
 * gone or replaced under the same name is left alone.
 */
export async function applyEvictions(deps: ApplyDeps, pods: readonly Pod[]): Promise<void> {
  await forEachTolerant(
    pods,
    async (pod) => {
      const { namespace, name, uid } = pod.metadata;
      deps.events.record(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${objectKey(pod.metadata)}`);
      await deps.api.delete({ resource: 'pods', namespace, name }, { preconditions: { uid } });
      deps.logger.info('evicted pod', { pod: objectKey(pod.metadata), node: pod.spec.nodeName });
    },
    (err) => isKedgeError(err, 'NotFound') || isKedgeError(err, 'Conflict'),
  );
}

/** Records the taint manager's Events and warnings, evicts, then sets the node's next wake-up (not if an eviction failed). */
export async function applyTaintManager(deps: ApplyDeps & { wakeAt(at: number | undefined): void }, actions: readonly TaintManagerAction[]): Promise<void> {
  for (const action of actions) {
    if (action.type === 'event') deps.events.record(action.pod, action.eventType, action.reason, action.message);
    else if (action.type === 'warnInvalidAutonomy') deps.logger.warn('ignoring invalid autonomy duration', { node: action.node, value: action.value });
    else if (action.type === 'evict') await applyEvictions(deps, action.pods);
    else deps.wakeAt(action.at);
  }
}
