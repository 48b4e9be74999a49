import type { PublishOrder } from '../publish-lanes.js';
import type { Envelope } from './envelope.js';

/**
 * Which lane each sync message takes (docs/protocol.md, "Control ahead of bulk"). What keeps a
 * node alive and the sync moving is control, whatever its size: acks and nacks, the hello and
 * its `synced`, heartbeats and statuses. A log chunk is bulk; anything else (objects, events,
 * usage, log requests) is bulk only when large.
 */
const CONTROL: ReadonlySet<Envelope['type']> = new Set(['ack', 'nack', 'hello', 'synced', 'heartbeat', 'nodeStatus', 'podStatus']);
const BULK: ReadonlySet<Envelope['type']> = new Set(['logResponse']);
/**
 * Objects on one topic keep their order whatever their size, as before: referenced objects go
 * before the pods that reference them [SYNC-10], an apply before the tombstone or patch that follows it.
 */
const OBJECTS: ReadonlySet<Envelope['type']> = new Set(['apply', 'patch', 'delete']);

/** Stream frames are bulk; their windows bound them, and per stream they keep their order in the bulk lane. */
export const STREAM_FRAME_ORDER: PublishOrder = { lane: 'bulk' };

export function publishOrder(message: Envelope): PublishOrder {
  const lane = CONTROL.has(message.type) ? 'control' : BULK.has(message.type) ? 'bulk' : 'by-size';
  return {
    lane,
    // [SYNC-10] `synced` follows the difference it answers: a large apply queued before it goes first.
    ...(message.type === 'synced' ? { fence: true } : {}),
    ...(OBJECTS.has(message.type) ? { key: 'objects' } : {}),
  };
}
