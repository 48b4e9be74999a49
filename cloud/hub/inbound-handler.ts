import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { NodeCondition } from '../../shared/types.js';
import type { ApiClient } from '../apiserver/client.js';
import { timestamp } from '../apiserver/object-meta.js';
import type { Inbound } from './inbound.js';
import type { LogRequests } from './log-requests.js';
import type { SessionTransport } from './node-session.js';
import type { Sessions } from './sessions.js';
import type { StatusVersions } from './status-versions.js';
import { touchNodeHeartbeat, writeNodeStatus, writePodStatus } from './upstream.js';

/** Counter of the messages the hub rejects, by reason (shared/counters.ts). */
export const HUB_REJECTED = 'kedge_hub_rejected_total';
export type HubRejection = 'retained';
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
}

export interface InboundDeps {
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  stats: HubStats;
  transport: SessionTransport;
  sessions: Sessions;
  logRequests: LogRequests;
  statusVersions: StatusVersions;
  /** Each node's conditions as it last reported them itself (a heartbeat vouches for them). */
  reportedConditions: Map<string, NodeCondition[]>;
  reject: Reject;
}

/**
 * What the hub does with each validated message from a node: answers hellos, records acks,
 * settles log requests and writes node and pod status. A message is taken only as the
 * sender's own; anything else is rejected, counted and logged.
 */
export function inboundHandler(deps: InboundDeps): (inbound: Inbound) => Promise<void> {
  const { api, clock, logger, stats, transport, sessions, logRequests, statusVersions, reportedConditions, reject } = deps;
  return async (inbound) => {
    const { node } = inbound;
    if (inbound.channel === 'up' && inbound.retained) {
      // Only presence is retained: a retained hello (or status) is a stale or planted one.
      reject('retained', `a retained ${inbound.message.type} is never taken for a live one`, { node, type: inbound.message.type });
      return;
    }
    stats.received++;
    const session = sessions.get(node);
    if (inbound.channel === 'presence') {
      const { online, epoch } = inbound.presence;
      if (!online && session.offline(epoch)) {
        logger.info('node offline', { node });
        logRequests.nodeAway(node);
      } else if (online && inbound.retained && session.resume(epoch)) {
        logger.info('node online before the hub listened; resumed from its ledger', { node, pending: session.pending });
      }
      return;
    }
    const message = inbound.message;
    try {
      switch (message.type) {
        case 'hello': {
          const plan = session.hello(message);
          logger.info('node hello', { node, holds: message.body.holds.length, applies: plan.applies.length, deletes: plan.deletes.length });
          return;
        }
        case 'ack':
          if (session.ack(message.parentId)) stats.acked++;
          return;
        case 'logResponse':
          logRequests.answer(message);
          return;
        case 'nodeStatus':
          await writeNodeStatus(api, message.body);
          if (message.body.status?.conditions) reportedConditions.set(node, message.body.status.conditions);
          break;
        case 'heartbeat':
          await touchNodeHeartbeat(api, node, timestamp(clock.now()), reportedConditions.get(node));
          return; // not acked: the next heartbeat supersedes it
        case 'podStatus':
          if (statusVersions.isNewer(message.ref.uid, message.statusVersion)) {
            await writePodStatus(api, node, message.ref, message.body);
            statusVersions.record(message.ref.uid, message.statusVersion);
          }
          break;
      }
      transport.send(node, { type: 'ack', parentId: message.id }); // [SYNC-11][SYNC-12]
    } catch (err) {
      // Not acked: the edge re-sends it.
      logger.warn('could not process message', { node, type: message.type, error: String(err) });
    }
  };
}
