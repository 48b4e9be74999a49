import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeDown, decodeUp, encode, MAX_PAYLOAD_BYTES } from './codec.js';
import { EnvelopeStamper, type UpMessage } from './envelope.js';
import { WIRE_DICTIONARY_D1 } from './wire-dictionary.js';

const edge = new EnvelopeStamper('edge-1', 'e1');
const status = edge.stamp({
  type: 'podStatus',
  ref: { kind: 'Pod', namespace: 'default', name: 'web', uid: '7b7dc473-dcbc-4ef1-b1d6-4da82dc498a1', resourceVersion: '94' },
  body: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-12-03T16:46:43.032Z' }], hostIP: '127.0.0.1', podIP: '127.64.0.44', qosClass: 'BestEffort' },
  statusVersion: 1796316403072,
} as never) as UpMessage;
const framed = (deflated: Buffer, codec = 1): Buffer => Buffer.concat([Buffer.from([0, codec]), deflated]);

describe('the compressed form of a payload (deflate-d1)', () => {
  it('carries the same message in a fraction of the bytes, and either form decodes', () => {
    const plain = encode(status);
    const compressed = encode(status, true);
    expect(compressed[0]).toBe(0);
    expect(compressed.length).toBeLessThan(plain.length / 2);
    expect(decodeUp(compressed)).toEqual({ ok: true, message: status });
    expect(decodeUp(plain)).toEqual({ ok: true, message: status });
  });

  it('leaves a payload too small to pay for a compressor as it is', () => {
    expect(encode({ online: true, epoch: 'e1' }, true).toString()).toBe('{"online":true,"epoch":"e1"}');
  });

  it('drops a bomb (a small payload that inflates beyond the payload limit) without inflating it whole', () => {
    const bomb = framed(deflateRawSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { dictionary: WIRE_DICTIONARY_D1 }));
    expect(bomb.length).toBeLessThan(MAX_PAYLOAD_BYTES);
    expect(decodeDown(bomb)).toEqual({ ok: false, reason: `compressed payload inflates beyond ${MAX_PAYLOAD_BYTES} bytes` });
  });

  it('drops a forged or damaged compressed payload, and an unknown codec, with a reason', () => {
    expect(decodeDown(framed(Buffer.from('not deflate at all')))).toMatchObject({ ok: false, reason: /cannot inflate/ });
    const truncated = encode(status, true).subarray(0, 40);
    expect(decodeUp(truncated)).toMatchObject({ ok: false });
    expect(decodeDown(framed(deflateRawSync(Buffer.from('{}')), 9))).toEqual({ ok: false, reason: 'unknown compression 9' });
    expect(decodeDown(Buffer.from([0]))).toEqual({ ok: false, reason: 'unknown compression (truncated)' });
    expect(decodeDown(framed(deflateRawSync(Buffer.from('[1,2]'), { dictionary: WIRE_DICTIONARY_D1 })))).toEqual({ ok: false, reason: 'payload must be a JSON object' });
  });
});
