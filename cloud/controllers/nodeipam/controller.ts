import { isKedgeError } from '../../../shared/errors.js';
import type { Node } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { CidrBook } from './book.js';
import { NO_CIDRS_REMAINING } from './cidr-set.js';
import { formatCidr, type ClusterCidrConfig } from './cidr.js';
import { planAllocation, planNodeEvent, type AllocationAction } from './plan.js';

/** kube-controller-manager's node-ipam-controller (`--controllers nodeipam`), by its short name. */
export const NODE_IPAM = 'nodeipam';

/**
 * kube's node IPAM with its range allocator: every Node gets a range of the cluster CIDR in
 * spec.podCIDR and spec.podCIDRs, which its network plugin hands pod IPs out of. Node handlers
 * keep the book (existing ranges marked used before any allocation, deleted nodes' ranges
 * released) synchronously, as kube's do; a queue of node names writes the allocations.
 */
export function nodeIpamController(config: ClusterCidrConfig): Controller {
  return { name: NODE_IPAM, start: (ctx) => startNodeIpam(ctx, config) };
}

async function startNodeIpam(ctx: ControllerContext, config: ClusterCidrConfig): Promise<RunningController> {
  const { clock } = ctx;
  const logger = ctx.logger.child(NODE_IPAM);
  const book = new CidrBook(config, logger);
  const nodes = new Map<string, Node>();

  const onNode = (event: CacheEvent<Node>): void => {
    if (event.type === 'SYNCED') return;
    const { name = '', uid } = event.object.metadata;
    if (event.type !== 'DELETED') nodes.set(name, event.object);
    else if (nodes.get(name)?.metadata.uid === uid) nodes.delete(name);
    for (const node of book.note(planNodeEvent(event, book.held(name)))) loop.queue.add(node);
  };

  const reconcile = async (name: string): Promise<void> => {
    const node = nodes.get(name);
    const actions = planAllocation(node, book.held(name), () => book.set.next(), book.isStarved(name));
    for (const action of actions) await applyAllocation(node!, action);
  };

  const applyAllocation = async (node: Node, action: AllocationAction): Promise<void> => {
    const { name = '', uid = '' } = node.metadata;
    if (action.type === 'notAvailable') {
      book.starve(name);
      if (!action.report) return;
      logger.warn('failed to allocate a pod range for the node', { node: name, clusterCIDR: formatCidr(config.cluster), error: NO_CIDRS_REMAINING });
      // kube's range allocator: nodeutil.RecordNodeStatusChange(recorder, node, "CIDRNotAvailable").
      return ctx.events.record(node, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
    }
    if (action.type === 'assign') book.take(name, uid, action.cidr);
    await writePodCIDR(ctx, node, action.cidr);
    logger.info('Set Node PodCIDR', { node: name, cidr: action.cidr });
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: 100, maxMs: 10_000 } });
  await loop.start([source(ctx.informers.of<Node>({ resource: 'nodes' }), onNode)]);
  return { close: () => loop.close() };
}

/**
 * spec.podCIDR and spec.podCIDRs, with the node's resourceVersion: a Conflict re-queues the
 * node (planned again from its newer copy); NotFound is done (its deletion releases the range).
 */
async function writePodCIDR(ctx: ControllerContext, node: Node, cidr: string): Promise<void> {
  const patch = { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { podCIDR: cidr, podCIDRs: [cidr] } };
  try {
    await ctx.api.patch<Node>({ resource: 'nodes', name: node.metadata.name }, patch, 'merge');
  } catch (err) {
    if (!isKedgeError(err, 'NotFound')) throw err;
  }
}
