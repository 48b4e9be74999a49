import { channelTopic, isValidNodeName, parseTopic, type Channel } from '../../shared/protocol/topics.js';

/** The MQTT username of the cloud hub; every other username is a node name. */
export const CLOUD_USERNAME = 'kedge-cloud';

/** Every client id of the cloud hub starts with this (`kedge-cloud-<epoch>`); no node may use one. */
export const CLOUD_CLIENT_ID_PREFIX = `${CLOUD_USERNAME}-`;

/** The client id of the cloud hub that stamps its messages with `epoch`. */
export function cloudClientId(epoch: string): string {
  return `${CLOUD_CLIENT_ID_PREFIX}${epoch}`;
}

/** Who a broker connection belongs to, decided once at CONNECT. */
export type BrokerIdentity = { role: 'cloud' } | { role: 'node'; node: string };

export type BrokerRole = BrokerIdentity['role'];

/**
 * Turns a username and the verdict of the credential check into an identity, or undefined
 * when the connection must be refused. `true` means "the role the username implies".
 */
export function identify(username: string | undefined, verdict: boolean | BrokerRole): BrokerIdentity | undefined {
  if (verdict === false || !username) return undefined;
  const role = verdict === true ? (username === CLOUD_USERNAME ? 'cloud' : 'node') : verdict;
  if (role === 'cloud') return { role: 'cloud' };
  return isValidNodeName(username) ? { role: 'node', node: username } : undefined;
}

/**
 * MQTT client ids belong to credentials: a node connects with its node name as client id, the
 * cloud with `kedge-cloud-…`. So a connection can only ever take over one of its own identity.
 */
export function ownsClientId(who: BrokerIdentity, clientId: string): boolean {
  return who.role === 'cloud' ? clientId.startsWith(CLOUD_CLIENT_ID_PREFIX) : clientId === who.node; // no node is named kedge-cloud-…
}

/** The client id a connection of this identity must use, in words. */
export function ownClientId(who: BrokerIdentity): string {
  return who.role === 'cloud' ? `${CLOUD_CLIENT_ID_PREFIX}<epoch>` : who.node;
}

const NODE_PUBLISHES: readonly Channel[] = ['up', 'presence', 'stream-up'];
const NODE_SUBSCRIBES: readonly Channel[] = ['down', 'stream-down'];

/**
 * What one connection may do with topics, worked out once from its identity when it is
 * admitted: a node may publish only to its own `up`, `presence` and `stream-up` topics and
 * subscribe only to its own `down` and `stream-down` (no wildcards); the cloud anything. The
 * check per message is then a lookup among the node's five topics, not a parse of the topic.
 * Nothing can go stale: the rules are fixed, a connection's identity never changes, and the
 * connections of a revoked credential are closed.
 */
export interface TopicRights {
  mayPublish(topic: string): boolean;
  maySubscribe(topicFilter: string): boolean;
}

const EVERYTHING: TopicRights = { mayPublish: () => true, maySubscribe: () => true };
const NOTHING: TopicRights = { mayPublish: () => false, maySubscribe: () => false };

export function topicRights(who: BrokerIdentity): TopicRights {
  if (who.role === 'cloud') return EVERYTHING;
  if (!isValidNodeName(who.node)) return NOTHING;
  const publishes = new Set(NODE_PUBLISHES.map((channel) => channelTopic(who.node, channel)));
  const subscribes = new Set(NODE_SUBSCRIBES.map((channel) => channelTopic(who.node, channel)));
  return { mayPublish: (topic) => publishes.has(topic), maySubscribe: (filter) => subscribes.has(filter) };
}

/** topicRights' publish rule, for one topic. */
export function mayPublish(who: BrokerIdentity, topic: string): boolean {
  return topicRights(who).mayPublish(topic);
}

/** Only presence is retained: a retained message anywhere else would reach a later subscriber as if it were new. */
export function mayRetain(topic: string): boolean {
  return parseTopic(topic)?.channel === 'presence';
}

/** topicRights' subscribe rule, for one topic filter. */
export function maySubscribe(who: BrokerIdentity, topicFilter: string): boolean {
  return topicRights(who).maySubscribe(topicFilter);
}
