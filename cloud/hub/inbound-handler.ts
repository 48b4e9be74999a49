import type { Clock } from '../../shared/clock.js';
import { isKedgeError, type ErrorCode } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { EventMessage, HelloMessage, ObjectRef, PodStatusMessage, UsageMessage } from '../../shared/protocol/envelope.js';
import { objectKey, type Node, type NodeCondition } from '../../shared/types.js';
import type { PodStartupTrace } from '../../shared/trace/pod-startup-trace.js';
import type { ApiClient } from '../client/client.js';
import { timestamp } from '../client/object-meta.js';
import type { BoundPods } from './bound-pods.js';
import { edgeEventObject, eventSubject, writeEdgeEvent } from './edge-events.js';
import type { Inbound } from './inbound.js';
import type { LogRequests } from './log-requests.js';
import type { NodeLeases } from './node-leases.js';
import type { NodeUsages } from './node-usages.js';
import type { SessionTransport } from './node-outbox.js';
import type { Sessions } from './sessions.js';
import { heartbeatNeedsWrite, touchNodeHeartbeat, writeNodeStatus, writePodStatus } from './upstream.js';

/** Counter of the messages the hub rejects, by reason (shared/counters.ts). */
export const HUB_REJECTED = 'kedge_hub_rejected_total';
export type HubRejection = 'retained' | 'pod-of-another-node' | 'hold-of-another-node' | 'log-of-another-node' | 'stream-of-another-node' | 'event-of-another-node' | 'usage-of-another-node' | 'refused-by-api';
export type Reject = (reason: HubRejection, message: string, details: Record<string, unknown>) => void;

/** What the hub counts of its traffic (served at /metrics as kedge_hub_<name>_total). */
export interface HubStats {
  /** Inbound payloads dropped by validation [SYNC-1]. */
  malformed: number;
  /** Inbound payloads that passed validation (up and presence). */
  received: number;
  /** Down messages published for the first time (apply, delete, synced, ack). */
  sent: number;
  /** Log requests sent to edges, each poll of a followed log included [SYNC-16]. */
  logRequests: number;
  /** Re-sends of unacked apply/delete messages [SYNC-4]. */
  resent: number;
  /** Edge acks that matched an apply/delete we sent [SYNC-5]. */
  acked: number;
  /** Payload bytes of every down message handed to the broker (sends and re-sends). */
  sentBytes: number;
}

export interface InboundDeps {
  /** The cloud's own client (the node-role label of a new Node). */
  api: ApiClient;
  /** A client acting as node `node`: what an edge reports is written as that node (NodeRestriction applies). */
  apiAsNode(node: string): ApiClient;
  clock: Clock;
  logger: Logger;
  stats: HubStats;
  transport: SessionTransport;
  sessions: Sessions;
  logRequests: LogRequests;
  boundPods: BoundPods;
  /** Each node's conditions as it last reported them itself (a heartbeat vouches for them). */
  reportedConditions: Map<string, NodeCondition[]>;
  /** The uid of each Node in the hub's cache (an Event about a Node must name it). */
  nodeUid(node: string): string | undefined;
  /** The Node as the hub's cache has it: whether a heartbeat needs a write is judged from it. */
  cachedNode?(node: string): Node | undefined;
  /** Each connected node's newest usage report [SYNC-22]. */
  usages: NodeUsages;
  reject: Reject;
  /** Each node's Lease in kube-node-lease, renewed by its heartbeats and status reports. */
  leases?: NodeLeases;
  /**
   * How old the Ready condition's heartbeat time may grow before a heartbeat writes it (0: every
   * heartbeat). With the Lease renewed on each heartbeat it is only a safety net behind the edge's
   * own full reports, which move it, as the kubelet's do.
   */
  heartbeatRefreshMs?: number;
  /** The node's presence went offline: what waits on it (streams) ends. */
  onNodeAway?(node: string): void;
  /** Where a pod's first report of running is noted. */
  trace?: PodStartupTrace;
}

/**
 * What the hub does with each validated message from a node: answers hellos, records acks,
 * settles log requests and writes node and pod status and Events. A message is taken only as the
 * sender's own; anything else is rejected, counted and logged.
 */
export function inboundHandler(deps: InboundDeps): (inbound: Inbound) => Promise<void> {
  const { api, apiAsNode, clock, logger, stats, transport, sessions, logRequests, boundPods, reportedConditions, usages, reject, leases, onNodeAway } = deps;
  /** Pods the sender names that the cache has bound to another node, or to none. */
  const notOwn = (node: string, refs: readonly ObjectRef[]): ObjectRef[] => refs.filter((ref) => boundPods.has(ref.uid) && boundPods.nodeOf(ref.uid) !== node);
  /** A renewal that fails is logged and tried again at the next heartbeat: the message itself was handled. */
  const renewLease = (node: string): Promise<void> | undefined =>
    leases?.heartbeat(node).catch((err: unknown) => logger.warn('could not renew the node lease', { node, error: String(err) }));
  return async (inbound) => {
    const { node } = inbound;
    if (inbound.channel === 'up' && inbound.retained) {
      // Only presence is retained: a retained hello (or status) is a stale or planted one.
      reject('retained', `a retained ${inbound.message.type} is never taken for a live one`, { node, type: inbound.message.type });
      return;
    }
    stats.received++;
    if (inbound.channel === 'presence') {
      const { online, epoch } = inbound.presence;
      if (!online && sessions.find(node)?.offline(epoch)) {
        logger.info('node offline', { node });
        logRequests.nodeAway(node);
        onNodeAway?.(node);
        usages.forget(node);
        sessions.forgetIfGone(node);
      } else if (online && inbound.retained && sessions.get(node).resume(epoch)) {
        logger.info('node online before the hub listened; resumed from its ledger', { node, pending: sessions.get(node).pending });
      }
      return;
    }
    const message = inbound.message;
    try {
      switch (message.type) {
        case 'hello': {
          const plan = sessions.get(node).hello(ownHolds(node, message));
          logger.info('node hello', { node, holds: message.body.holds.length, applies: plan.applies.length, deletes: plan.deletes.length });
          return;
        }
        case 'ack': // matched against what was sent to this node only
          if (sessions.find(node)?.ack(message.parentId)) stats.acked++;
          return;
        case 'nack': // lean sync: a patch it could not apply; the object goes whole
          if (sessions.find(node)?.nack(message.parentId)) logger.info('node refused a lean form; sending the whole object', { node, parentId: message.parentId, reason: message.body.reason });
          return;
        case 'logResponse':
          if (logRequests.answer(node, message) === 'other-node') {
            reject('log-of-another-node', `node ${node} answered a log request sent to another node`, { node, parentId: message.parentId });
          }
          return;
        case 'nodeStatus':
          await writeNodeStatus(apiAsNode(node), message.body, api);
          if (message.body.status?.conditions) reportedConditions.set(node, message.body.status.conditions);
          await renewLease(node);
          break;
        case 'heartbeat': {
          const reported = reportedConditions.get(node);
          if (heartbeatNeedsWrite(deps.cachedNode?.(node), clock.now(), deps.heartbeatRefreshMs ?? 0, reported !== undefined)) {
            await touchNodeHeartbeat(apiAsNode(node), node, timestamp(clock.now()), reported);
          }
          await renewLease(node);
          return; // not acked: the next heartbeat supersedes it
        }
        case 'podStatus':
          await podStatus(node, message);
          break;
        case 'event':
          await event(node, message);
          break;
        case 'usage':
          return usage(node, message); // not acked: the next report supersedes it
      }
      transport.send(node, { type: 'ack', parentId: message.id }); // [SYNC-11][SYNC-12]
    } catch (err) {
      if (refusedForGood(err)) {
        // Sent again it would be refused again: dropped (acked, but for a heartbeat, which never is), counted and logged.
        reject('refused-by-api', `the API refused the ${message.type} of node ${node}: ${(err as Error).message}`, { node, type: message.type });
        if (message.type !== 'heartbeat') transport.send(node, { type: 'ack', parentId: message.id });
        return;
      }
      // Not acked: the edge re-sends it.
      logger.warn('could not process message', { node, type: message.type, error: String(err) });
    }
  };

  /**
   * [SYNC-12] A status only for a pod bound to the sender, recorded only when written. A pod
   * gone from the cache is done with: acked, nothing written or recorded.
   */
  async function podStatus(node: string, message: PodStatusMessage): Promise<void> {
    const { uid } = message.ref;
    if (!boundPods.has(uid)) return;
    if (notOwn(node, [message.ref]).length > 0) {
      const owner = boundPods.nodeOf(uid);
      reject('pod-of-another-node', `node ${node} sent the status of pod ${podName(message.ref)}, ${owner ? `bound to node ${owner}` : 'bound to no node'}`, { node, uid });
      return;
    }
    sessions.find(node)?.lean.statusReported(uid); // it owns the pod's status now [SYNC-12]
    if (!boundPods.isNewer(uid, message.statusVersion)) return;
    if (message.body.phase === 'Running') deps.trace?.mark(objectKey(message.ref), 'reported');
    if ((await writePodStatus(apiAsNode(node), node, message.ref, message.body)) === 'applied') boundPods.record(uid, message.statusVersion);
  }

  /** [SYNC-21] An Event about the sender's own Node or one of its pods, written as the node; anything else refused. */
  async function event(node: string, message: EventMessage): Promise<void> {
    const subject = eventSubject(node, message.body, { nodeUid: deps.nodeUid, podOf: (uid) => boundPods.podOf(uid) });
    if (!subject.own) return reject('event-of-another-node', subject.why, { node, name: message.body.name });
    await writeEdgeEvent(apiAsNode(node), api, edgeEventObject(node, message.body, subject));
  }

  /** [SYNC-22] The newest usage of a connected node, with only its own pods. */
  function usage(node: string, message: UsageMessage): void {
    if (!sessions.find(node)?.connected) return; // late: the node went away meanwhile
    const foreign = usages.record(node, message.body, boundPods);
    if (foreign.length === 0) return;
    const owner = boundPods.nodeOf(foreign[0]!.uid);
    reject('usage-of-another-node', `node ${node} reported the usage of ${foreign.length} pod(s) bound elsewhere, e.g. ${podName(foreign[0]!)} ${owner ? `bound to node ${owner}` : 'bound to no node'}: left out`, { node });
  }

  /** The hello without the pods it says it holds that are bound to another node. */
  function ownHolds(node: string, hello: HelloMessage): HelloMessage {
    const foreign = notOwn(node, hello.body.holds);
    if (foreign.length === 0) return hello;
    reject('hold-of-another-node', `node ${node} says it holds ${foreign.length} pod(s) bound elsewhere, e.g. ${podName(foreign[0]!)}: left out of its hello`, { node });
    const uids = new Set(foreign.map((ref) => ref.uid));
    return { ...hello, body: { ...hello.body, holds: hello.body.holds.filter((ref) => !uids.has(ref.uid)) } };
  }
}

/** What the API refuses whatever the moment (NodeRestriction, validation, size), as opposed to a store that is down. */
const PERMANENT: readonly ErrorCode[] = ['BadRequest', 'Forbidden', 'Invalid', 'TooLarge'];
const refusedForGood = (err: unknown): boolean => PERMANENT.some((code) => isKedgeError(err, code));

const podName = (ref: { namespace?: string; name: string }): string => `${ref.namespace ?? 'default'}/${ref.name}`;
