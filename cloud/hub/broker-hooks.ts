import type { AedesOptions, Aedes, Client } from 'aedes';
import type { Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Counters } from '../../shared/counters.js';
import type { Logger } from '../../shared/log.js';
import { LogSampler, unloggedFields } from '../../shared/log-sampler.js';
import { topics } from '../../shared/protocol/topics.js';
import { mayRetain } from './acl.js';
import { peerOf, type Admission } from './broker-admission.js';

export const DENIED = 'kedge_broker_denied_total';

type DeniedAction = 'publish' | 'retain' | 'subscribe';
const DENIED_WHAT: Record<DeniedAction, string> = { publish: 'publish', retain: 'retained publish', subscribe: 'subscription' };

type Refuse = (reason: 'revoked', message: string, details: Record<string, unknown>) => void;

/** aedes' authorizePublish and authorizeSubscribe: the topic ACL (acl.ts), each denial counted and its log line sampled. */
export function topicAuthorizers(admission: Admission, counters: Counters, clock: Clock, logger: Logger): Pick<AedesOptions, 'authorizePublish' | 'authorizeSubscribe'> {
  const deniedLog = new LogSampler(clock);
  const deny = (action: DeniedAction, client: Client | null, topic: string): void => {
    counters.add(DENIED, { action });
    const unlogged = deniedLog.sample(action);
    if (unlogged !== undefined) logger.warn(`broker denied a ${DENIED_WHAT[action]}`, { action, clientId: client?.id, peer: peerOf(client), topic, ...unloggedFields(unlogged) });
  };
  return {
    authorizePublish: (client, packet, done) => {
      // A null client is an obsolete will from shared persistence: nobody to vouch for it.
      if (!admission.rightsOf(client)?.mayPublish(packet.topic)) {
        deny('publish', client, packet.topic);
        return done(new Error(`not authorized to publish to ${packet.topic}`));
      }
      if (packet.retain && !mayRetain(packet.topic)) {
        deny('retain', client, packet.topic);
        return done(new Error(`only presence is retained, not ${packet.topic}`));
      }
      done(null);
    },
    authorizeSubscribe: (client, sub, done) => {
      if (admission.rightsOf(client)?.maySubscribe(sub.topic)) return done(null, sub);
      deny('subscribe', client, sub.topic);
      done(null, null); // SUBACK 0x80 for this topic; the connection stays up
    },
  };
}

/**
 * With `waitForCloud`, every node is disconnected when the last cloud hub listening on the up
 * topics leaves, unless `keepNodes()` says the cloud's next hub will resume them.
 */
export function disconnectNodesWithoutCloud(broker: Aedes, admission: Admission, waitForCloud: boolean, logger: Logger, keepNodes: () => boolean = () => false): void {
  const { nodes, listening } = admission;
  broker.on('subscribe', (subs, client) => {
    if (admission.identityOf(client)?.role === 'cloud' && subs.some((sub) => sub.topic === topics.allUp)) listening.add(client);
  });
  broker.on('clientDisconnect', (client) => {
    if (!listening.delete(client) || listening.size > 0 || !waitForCloud) return;
    if (keepNodes()) return void logger.info('the cloud hub left; keeping the nodes for its next term', { nodes: nodes.size });
    logger.warn('the cloud hub left; disconnecting every node', { nodes: nodes.size });
    for (const node of nodes) node.close();
  });
}

/** Closes the connections of a node whose credential is revoked; returns what stops watching. */
export function closeRevokedNodes(revoked$: Observable<string> | undefined, admission: Admission, refuse: Refuse): () => void {
  const subscription = revoked$?.subscribe((node) => {
    for (const client of admission.nodes) {
      const who = admission.identityOf(client);
      if (who?.role !== 'node' || who.node !== node) continue;
      refuse('revoked', `the credential of node ${node} was revoked`, { clientId: client.id, peer: peerOf(client) });
      client.close();
    }
  });
  return () => subscription?.unsubscribe();
}

/**
 * Follows `nodesAdmitted$` (none: nodes are always admitted): `set` gets each value; when it
 * turns false, every node connection is closed (they reconnect, to another cloud's broker).
 * Returns what stops following.
 */
export function gateNodes(nodesAdmitted$: Observable<boolean> | undefined, admission: Admission, logger: Logger, set: (admitted: boolean) => void): () => void {
  let admitted = true;
  const subscription = nodesAdmitted$?.subscribe((next) => {
    const closing = admitted && !next;
    admitted = next;
    set(next);
    if (!closing || admission.nodes.size === 0) return;
    logger.warn('nodes are no longer admitted here; disconnecting every node', { nodes: admission.nodes.size });
    for (const node of [...admission.nodes]) node.close();
  });
  return () => subscription?.unsubscribe();
}
