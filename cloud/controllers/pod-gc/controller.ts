import type { Node, Pod } from '../../../shared/types.js';
import { isKedgeError } from '../../../shared/errors.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { planOrphans } from './plan.js';

/**
 * kube-controller-manager's pod GC, its orphan part: the pods of a deleted Node are deleted
 * (grace period 0: no kubelet will confirm) once the node has been gone for the node-monitor
 * grace period, so that their controllers make replacements. Queue keys are node names.
 */
export const podGarbageCollector: Controller = { name: 'pod-gc', start: startPodGc };

async function startPodGc(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('pod-gc');
  const nodes = new Set<string>();
  /** When each node was first seen missing while pods were bound to it. */
  const missingSince = new Map<string, number>();

  /** Node names pods named before the first list of nodes was in: looked at once it is (not one list of pods each at start-up). */
  let early: Set<string> | undefined = new Set();

  const suspect = (node: string | undefined): void => {
    if (!node || nodes.has(node)) return;
    if (early) return void early.add(node);
    if (!missingSince.has(node)) missingSince.set(node, clock.now());
    loop.queue.add(node);
  };

  const reconcile = async (node: string): Promise<void> => {
    const pods = (await api.list<Pod>({ resource: 'pods' }, { fieldSelector: `spec.nodeName=${node}` })).items;
    const plan = planOrphans(nodes.has(node), missingSince.get(node), pods, clock.now(), timing.nodeMonitorGraceMs);
    if (plan.type === 'wait') return loop.addAfter(node, plan.ms);
    missingSince.delete(node);
    if (plan.type === 'none') return;
    for (const pod of plan.pods) {
      const ref = { resource: 'pods', namespace: pod.metadata.namespace, name: pod.metadata.name };
      try {
        await api.delete(ref, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
      } catch (err) {
        if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
        continue;
      }
      logger.info('deleted a pod of a deleted node', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, node });
      events.record(pod, 'Normal', 'PodGC', `Node ${node} no longer exists: pod deleted`);
    }
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: 100, maxMs: 10_000 } });
  await loop.start([
    source(ctx.informers.of<Node>({ resource: 'nodes' }), (e) => {
      if (e.type === 'SYNCED') {
        const named = early;
        early = undefined;
        for (const node of named ?? []) suspect(node);
        return;
      }
      const name = e.object.metadata.name!;
      if (e.type === 'DELETED') {
        nodes.delete(name);
        suspect(name);
      } else nodes.add(name);
    }),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), (e) => {
      if (e.type === 'ADDED' || e.type === 'MODIFIED') suspect(e.object.spec.nodeName);
    }),
  ]);
  return { close: () => loop.close() };
}
