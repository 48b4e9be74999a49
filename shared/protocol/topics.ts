/**
 * MQTT topic names of the sync protocol. Every node has its own three topics:
 *   kedge/v1/<node>/down      cloud → edge (objects, tombstones, acks)
 *   kedge/v1/<node>/up        edge → cloud (hello, acks, node and pod status)
 *   kedge/v1/<node>/presence  retained; "online" on connect, "offline" by last will
 * and two for its streams [SYNC-20] (binary frames, stream-frame.ts), apart from the sync's:
 *   kedge/v1/<node>/stream-down  cloud → edge
 *   kedge/v1/<node>/stream-up    edge → cloud
 */
export const TOPIC_ROOT = 'kedge/v1';

export type Channel = 'down' | 'up' | 'presence' | 'stream-down' | 'stream-up';
const CHANNELS: readonly string[] = ['down', 'up', 'presence', 'stream-down', 'stream-up'] satisfies Channel[];

/** The topic of `node`'s `channel`. */
export function channelTopic(node: string, channel: Channel): string {
  return `${TOPIC_ROOT}/${node}/${channel}`;
}

export const topics = {
  down: (node: string): string => channelTopic(node, 'down'),
  up: (node: string): string => channelTopic(node, 'up'),
  presence: (node: string): string => channelTopic(node, 'presence'),
  streamDown: (node: string): string => channelTopic(node, 'stream-down'),
  streamUp: (node: string): string => channelTopic(node, 'stream-up'),
  allUp: `${TOPIC_ROOT}/+/up`,
  allStreamUp: `${TOPIC_ROOT}/+/stream-up`,
  allPresence: `${TOPIC_ROOT}/+/presence`,
} as const;

/** Kubernetes node names are DNS subdomains: this also keeps MQTT wildcards out of topics. */
const NODE_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
/** The cloud hub's broker user name, and the prefix of its client ids: no node may be named so. */
const CLOUD_NAME = /^kedge-cloud(-|$)/;

export function isValidNodeName(name: string): boolean {
  return NODE_NAME.test(name) && !CLOUD_NAME.test(name);
}

/** Splits a protocol topic into node and channel; undefined for anything else. */
export function parseTopic(topic: string): { node: string; channel: Channel } | undefined {
  const parts = topic.split('/');
  if (parts.length !== 4 || `${parts[0]}/${parts[1]}` !== TOPIC_ROOT) return undefined;
  const [, , node, channel] = parts as [string, string, string, string];
  if (!isValidNodeName(node)) return undefined;
  if (!CHANNELS.includes(channel)) return undefined;
  return { node, channel: channel as Channel };
}
