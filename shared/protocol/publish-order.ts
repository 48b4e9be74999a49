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

// One order per kind, made once: the hub publishes for every node through one client.
const BULK_ORDER: PublishOrder = Object.freeze({ lane: 'bulk' });
const CONTROL_ORDER: PublishOrder = Object.freeze({ lane: 'control' });
/** [SYNC-10] `synced` follows the difference it answers: a large apply queued before it goes first. */
const SYNCED_ORDER: PublishOrder = Object.freeze({ lane: 'control', fence: true });
const OBJECT_ORDER: PublishOrder = Object.freeze({ lane: 'by-size', key: 'objects' });
const BY_SIZE_ORDER: PublishOrder = Object.freeze({ lane: 'by-size' });

export function publishOrder(message: Envelope): PublishOrder {
  if (message.type === 'synced') return SYNCED_ORDER;
  if (CONTROL.has(message.type)) return CONTROL_ORDER;
  if (BULK.has(message.type)) return BULK_ORDER;
  return OBJECTS.has(message.type) ? OBJECT_ORDER : BY_SIZE_ORDER;
}

/** Stream frames are bulk; their windows bound them, and per stream they keep their order in the bulk lane. */
export const STREAM_FRAME_ORDER: PublishOrder = BULK_ORDER;
