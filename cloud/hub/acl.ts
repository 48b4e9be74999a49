import { isValidNodeName, parseTopic, type Channel } from '../../shared/protocol/topics.js';

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

/** A node may publish only to its own `up`, `presence` and `stream-up` topics; the cloud anywhere. */
export function mayPublish(who: BrokerIdentity, topic: string): boolean {
  if (who.role === 'cloud') return true;
  const parsed = parseTopic(topic);
  return parsed !== undefined && parsed.node === who.node && NODE_PUBLISHES.includes(parsed.channel);
}

/** Only presence is retained: a retained message anywhere else would reach a later subscriber as if it were new. */
export function mayRetain(topic: string): boolean {
  return parseTopic(topic)?.channel === 'presence';
}

/** A node may subscribe only to its own `down` and `stream-down` topics (no wildcards); the cloud to anything. */
export function maySubscribe(who: BrokerIdentity, topicFilter: string): boolean {
  if (who.role === 'cloud') return true;
  const parsed = parseTopic(topicFilter);
  return parsed !== undefined && parsed.node === who.node && NODE_SUBSCRIBES.includes(parsed.channel);
}
