import { describe, expect, it } from 'vitest';
import { decodeDown, decodePresence, decodeUp, encode, MAX_PAYLOAD_BYTES } from './codec.js';
import { EnvelopeStamper } from './envelope.js';
import { parseTopic, topics } from './topics.js';

const edge = new EnvelopeStamper('edge-1', 'e1');
const cloud = new EnvelopeStamper('cloud', 'c1');
const ref = { kind: 'Pod', namespace: 'default', name: 'hello', uid: 'u1', resourceVersion: '7' };
const pod = { metadata: { name: 'hello', namespace: 'default', uid: 'u1' }, spec: { containers: [] } };

describe('codec', () => {
  it('round-trips every message type', () => {
    const up = [
      edge.stamp({ type: 'hello', body: { bootId: 'b', holds: [ref] } }),
      edge.stamp({ type: 'ack', parentId: 'c1.1' }),
      edge.stamp({ type: 'nodeStatus', body: { metadata: { name: 'edge-1' } } }),
      edge.stamp({ type: 'heartbeat' }),
      edge.stamp({ type: 'podStatus', ref, body: { phase: 'Running' } }),
      edge.stamp({ type: 'hello', body: { bootId: 'b', holds: [], accepts: ['deflate-d1', 'patch-v1'] } }),
      edge.stamp({ type: 'nack', parentId: 'c1.3', body: { reason: 'base not held' } }),
    ];
    for (const m of up) expect(decodeUp(encode(m))).toEqual({ ok: true, message: m });
    const down = [
      cloud.stamp({ type: 'apply', ref, body: pod }),
      cloud.stamp({ type: 'delete', ref }),
      cloud.stamp({ type: 'synced', parentId: 'e1.1', body: { applies: 1, deletes: 0 } }),
      cloud.stamp({ type: 'ack', parentId: 'e1.2' }),
      cloud.stamp({ type: 'patch', ref, base: '6', body: { metadata: { labels: { a: 'b' } } }, digest: '0123456789abcdef', keepStatus: true }),
      cloud.stamp({ type: 'apply', ref, body: pod, keepStatus: true }),
      cloud.stamp({ type: 'synced', parentId: 'e1.1', body: { applies: 0, deletes: 0, accepts: ['deflate-d1'] } }),
    ];
    for (const m of down) expect(decodeDown(encode(m))).toEqual({ ok: true, message: m });
  });

  it('numbers messages per sender', () => {
    const s = new EnvelopeStamper('edge-2', 'x');
    const a = s.stamp({ type: 'ack', parentId: 'p' });
    const b = s.stamp({ type: 'ack', parentId: 'p' });
    expect([a.seq, b.seq, a.id, b.id]).toEqual([1, 2, 'x.1', 'x.2']);
  });

  it.each([
    ['not JSON', '{oops', /not JSON/],
    ['an array', '[]', /JSON object/],
    ['a wrong version', JSON.stringify({ v: 2 }), /version/],
    ['no id', JSON.stringify({ v: 1, seq: 1, sender: 'a', epoch: 'e', type: 'ack', parentId: 'p' }), /id/],
    ['a negative seq', JSON.stringify({ v: 1, id: 'i', seq: -1, sender: 'a', epoch: 'e', type: 'ack', parentId: 'p' }), /seq/],
    ['an unknown type', JSON.stringify({ v: 1, id: 'i', seq: 1, sender: 'a', epoch: 'e', type: 'boom' }), /unknown message type/],
    ['an apply (not an up type)', JSON.stringify(cloud.stamp({ type: 'apply', ref, body: pod })), /unknown message type/],
    ['a hello without holds', JSON.stringify({ ...edge.stamp({ type: 'hello', body: { bootId: 'b', holds: [] } }), body: { bootId: 'b' } }), /holds/],
    ['a podStatus without uid', JSON.stringify({ ...edge.stamp({ type: 'podStatus', ref, body: {} }), ref: { kind: 'Pod', name: 'x' } }), /uid/],
    ['another node', JSON.stringify(edge.stamp({ type: 'nodeStatus', body: { metadata: { name: 'edge-9' } } })), /own Node/],
    ...[2 ** 53, -1, 1.5, 1e300, '7'].map((v): [string, string, RegExp] => [`a statusVersion of ${JSON.stringify(v)} (a safe non-negative integer only)`, JSON.stringify({ ...edge.stamp({ type: 'podStatus', ref, body: {} }), statusVersion: v }), /statusVersion must be a non-negative integer/]),
  ] as [string, string, RegExp][])('rejects %s on the up topic', (_name, payload, reason) => {
    const out = decodeUp(payload);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.reason).toMatch(reason);
  });

  it.each([
    ['a patch without a base', { ...cloud.stamp({ type: 'patch', ref, base: '6', body: {}, digest: 'd' }), base: undefined }, /base/],
    ['a patch that is not an object', { ...cloud.stamp({ type: 'patch', ref, base: '6', body: {}, digest: 'd' }), body: [1] }, /merge patch/],
    ['a patch without a digest', { ...cloud.stamp({ type: 'patch', ref, base: '6', body: {}, digest: 'd' }), digest: 7 }, /digest/],
    ['a patch of a kind never synced', cloud.stamp({ type: 'patch', ref: { ...ref, kind: 'Deployment' }, base: '6', body: {}, digest: 'd' }), /synced kind/],
    ['a keepStatus that is no boolean', { ...cloud.stamp({ type: 'apply', ref, body: pod }), keepStatus: 'yes' }, /keepStatus/],
    ['accepts that are no list of names', cloud.stamp({ type: 'synced', parentId: 'e', body: { applies: 0, deletes: 0, accepts: 'all' as never } }), /accepts/],
  ] as [string, object, RegExp][])('rejects %s on the down topic', (_name, message, reason) => {
    expect(decodeDown(JSON.stringify(message))).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('rejects an apply whose body does not match its ref', () => {
    const bad = { ...cloud.stamp({ type: 'apply', ref, body: pod }), body: { ...pod, metadata: { ...pod.metadata, uid: 'other' } } };
    const out = decodeDown(JSON.stringify(bad));
    expect(out.ok).toBe(false);
  });

  it('rejects oversized payloads before parsing', () => {
    const out = decodeUp(Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 32));
    expect(out).toMatchObject({ ok: false, reason: expect.stringMatching(/exceeds/) });
  });

  it('validates presence', () => {
    expect(decodePresence(encode({ online: true, epoch: 'e' }))).toEqual({ ok: true, message: { online: true, epoch: 'e' } });
    expect(decodePresence('{"online":"yes","epoch":"e"}').ok).toBe(false);
  });
});

describe('topics', () => {
  it('names and parses per-node topics', () => {
    expect(topics.down('edge-1')).toBe('kedge/v1/edge-1/down');
    expect(parseTopic('kedge/v1/edge-1/up')).toEqual({ node: 'edge-1', channel: 'up' });
    expect(parseTopic('kedge/v1/edge-1/other')).toBeUndefined();
    expect(parseTopic('kedge/v1/edge-1/stream-up')).toEqual({ node: 'edge-1', channel: 'stream-up' });
    expect(parseTopic('kedge/v1/edge-1/stream-down')).toEqual({ node: 'edge-1', channel: 'stream-down' });
    expect(parseTopic('kedge/v1/Bad_Name/up')).toBeUndefined();
    expect(parseTopic('kedge/v1/kedge-cloud-1/up')).toBeUndefined(); // the cloud's names are no node's
    expect(parseTopic('kedge/v1/kedge-cloudy/up')).toEqual({ node: 'kedge-cloudy', channel: 'up' });
    expect(parseTopic('other/v1/edge-1/up')).toBeUndefined();
  });
});
