import { describe, expect, it } from 'vitest';
import { publishOrder } from '../../shared/protocol/publish-order.js';
import { EnvelopeStamper, type Envelope } from '../../shared/protocol/envelope.js';

const stamper = new EnvelopeStamper('edge-1', 'e1');
const ref = { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', resourceVersion: '3' };
const message = (draft: object): Envelope => stamper.stamp(draft as never) as Envelope;

describe('the lane of each sync message', () => {
  it.each([
    ['a heartbeat', { type: 'heartbeat' }, { lane: 'control' }],
    ['an ack', { type: 'ack', parentId: 'x' }, { lane: 'control' }],
    ['a nack', { type: 'nack', parentId: 'x', body: { reason: 'r' } }, { lane: 'control' }],
    ['a hello, however many holds', { type: 'hello', body: { bootId: 'b', holds: [] } }, { lane: 'control' }],
    ['a pod status', { type: 'podStatus', ref, body: {} }, { lane: 'control' }],
    ['a node status', { type: 'nodeStatus', body: {} }, { lane: 'control' }],
    ['synced, behind the difference it closes', { type: 'synced', parentId: 'h', body: { applies: 0, deletes: 0 } }, { lane: 'control', fence: true }],
    ['a log chunk', { type: 'logResponse', parentId: 'x', body: {} }, { lane: 'bulk' }],
    ['an apply, by size and in order with the other objects', { type: 'apply', ref, body: {} }, { lane: 'by-size', key: 'objects' }],
    ['a patch, likewise', { type: 'patch', ref, base: '2', body: {}, digest: 'd' }, { lane: 'by-size', key: 'objects' }],
    ['a tombstone, likewise', { type: 'delete', ref }, { lane: 'by-size', key: 'objects' }],
    ['an event, by size', { type: 'event', body: {} }, { lane: 'by-size' }],
    ['a usage report, by size', { type: 'usage', body: {} }, { lane: 'by-size' }],
  ])('%s', (_name, draft, expected) => {
    expect(publishOrder(message(draft))).toEqual(expected);
  });
});
