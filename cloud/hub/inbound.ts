import { decodePresence, decodeUp, type Decoded } from '../../shared/protocol/codec.js';
import type { Presence, UpMessage } from '../../shared/protocol/envelope.js';
import { parseTopic } from '../../shared/protocol/topics.js';

/**
 * A validated message from a node, on that node's own topic. A `retained` one came from the
 * broker's store when the hub subscribed, not live: the node said it before the hub listened
 * (MQTT 3.1.1 sets the flag only then). Only presence is retained; an `up` message so flagged
 * is stale or planted, and the hub ignores it.
 */
export type Inbound = ({ node: string; channel: 'up'; message: UpMessage } | { node: string; channel: 'presence'; presence: Presence }) & { retained?: boolean };

/**
 * [SYNC-1] Validates one MQTT message the hub received: a protocol topic, a valid payload for
 * that channel, and (on `up`) a sender equal to the topic's node. Pure.
 */
export function decodeInbound(topic: string, payload: Buffer | string): Decoded<Inbound> {
  const parsed = parseTopic(topic);
  // Stream frames are not sync messages: the hub takes them apart from these (streamFrames in broker-link.ts).
  if (!parsed || (parsed.channel !== 'up' && parsed.channel !== 'presence')) return { ok: false, reason: `not an inbound topic: ${topic}` };
  const { node } = parsed;
  if (parsed.channel === 'presence') {
    const decoded = decodePresence(payload);
    return decoded.ok ? { ok: true, message: { node, channel: 'presence', presence: decoded.message } } : decoded;
  }
  const decoded = decodeUp(payload);
  if (!decoded.ok) return decoded;
  if (decoded.message.sender !== node) return { ok: false, reason: `sender ${decoded.message.sender} on ${node}'s topic` };
  return { ok: true, message: { node, channel: 'up', message: decoded.message } };
}
