import { describe, expect, it } from 'vitest';
import { decodeStreamFrame, encodeStreamFrame, MAX_STREAM_DATA_BYTES, type StreamFrame } from '../../shared/protocol/stream-frame.js';
import { FrameOrder, ReceiveWindow, SendWindow } from '../../shared/protocol/stream-flow.js';

const pod = { namespace: 'default', name: 'x', uid: 'u1' };
const frames: StreamFrame[] = [
  { type: 'open', stream: 'e1.1', seq: 0, pod, request: { kind: 'exec', container: 'c1', command: ['sh', '-c', 'echo hi'], stdin: true, stdout: true, stderr: true, tty: false }, window: 262144 },
  { type: 'open', stream: 'e1.2', seq: 0, pod, request: { kind: 'attach', container: 'c1', stdin: false, stdout: true, stderr: false, tty: true }, window: 1 },
  { type: 'open', stream: 'e1.3', seq: 0, pod, request: { kind: 'portforward', port: 8080 }, window: 4096 },
  { type: 'opened', stream: 'e1.1', seq: 0, window: 262144 },
  { type: 'data', stream: 'e1.1', seq: 1, channel: 1, data: Buffer.from([0, 1, 2, 255]) },
  { type: 'credit', stream: 'e1.1', seq: 2, bytes: 65536 },
  { type: 'resize', stream: 'e1.1', seq: 3, width: 80, height: 24 },
  { type: 'eof', stream: 'e1.1', seq: 4, channel: 0 },
  { type: 'end', stream: 'e1.1', seq: 5, end: { exitCode: 3 } },
  { type: 'end', stream: 'e1.1', seq: 6, end: { error: 'container not found ("c1")', reason: 'NotFound' } },
];

const framed = (header: unknown, data = Buffer.alloc(0)): Buffer => {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(2);
  length.writeUInt16BE(json.length);
  return Buffer.concat([length, json, data]);
};

describe('stream frames', () => {
  it.each(frames.map((f) => [f.type, f] as const))('round-trip: %s', (_type, frame) => {
    expect(decodeStreamFrame(encodeStreamFrame(frame))).toEqual({ ok: true, message: frame });
  });

  it('carries a data frame of the largest size, and refuses to encode a larger one', () => {
    const data = Buffer.alloc(MAX_STREAM_DATA_BYTES, 7);
    const decoded = decodeStreamFrame(encodeStreamFrame({ type: 'data', stream: 's', seq: 0, channel: 0, data }));
    expect(decoded.ok && decoded.message.type === 'data' && decoded.message.data.equals(data)).toBe(true);
    expect(() => encodeStreamFrame({ type: 'data', stream: 's', seq: 0, channel: 0, data: Buffer.alloc(MAX_STREAM_DATA_BYTES + 1) })).toThrow(RangeError);
  });

  it.each([
    ['empty', Buffer.alloc(0), /shorter than its header length/],
    ['a header longer than the payload', Buffer.from([0, 50, 123]), /shorter than its header/],
    ['a header over the limit', Buffer.from([0xff, 0xff]), /over/],
    ['a header that is not JSON', framed('x').subarray(0, 3), /shorter|not JSON/],
    ['a header that is an array', framed([1]), /not an object/],
    ['an unknown type', framed({ type: 'toString', stream: 's', seq: 0 }), /unknown frame type/],
    ['a stream id with a slash', framed({ type: 'eof', stream: 'a/b', seq: 0, channel: 0 }), /stream must be an id/],
    ['a negative seq', framed({ type: 'eof', stream: 's', seq: -1, channel: 0 }), /seq/],
    ['a channel over 255', framed({ type: 'eof', stream: 's', seq: 0, channel: 256 }), /channel/],
    ['bytes on an eof', framed({ type: 'eof', stream: 's', seq: 0, channel: 0 }, Buffer.from('x')), /carries no bytes/],
    ['an empty data frame', framed({ type: 'data', stream: 's', seq: 0, channel: 0 }), /empty data frame/],
    ['an oversized data frame', framed({ type: 'data', stream: 's', seq: 0, channel: 0 }, Buffer.alloc(MAX_STREAM_DATA_BYTES + 1)), /over 32768/],
    ['a zero credit', framed({ type: 'credit', stream: 's', seq: 0, bytes: 0 }), /bytes/],
    ['an exec without a command', framed({ ...frames[0], request: { ...(frames[0] as { request: object }).request, command: [] } }), /command/],
    ['a command of non-strings', framed({ ...frames[0], request: { ...(frames[0] as { request: object }).request, command: [1] } }), /command/],
    ['a port out of range', framed({ ...frames[2], request: { kind: 'portforward', port: 70000 } }), /port/],
    ['an open without a uid', framed({ ...frames[0], pod: { namespace: 'default', name: 'x' } }), /uid/],
    ['an end with an unknown reason', framed({ type: 'end', stream: 's', seq: 0, end: { error: 'x', reason: 'Teapot' } }), /reason/],
    ['an end with a negative exit code', framed({ type: 'end', stream: 's', seq: 0, end: { exitCode: -1 } }), /exitCode/],
  ])('drops %s', (_what, payload, reason) => {
    const decoded = decodeStreamFrame(payload);
    expect(decoded.ok).toBe(false);
    expect(decoded.ok ? '' : decoded.reason).toMatch(reason);
  });
});

describe('frame order', () => {
  const eof = (seq: number): StreamFrame => ({ type: 'eof', stream: 's', seq, channel: 0 });
  it('stamps from 0, takes the next, drops a duplicate and calls a gap lost', () => {
    const order = new FrameOrder('s');
    expect([order.stamp({ type: 'eof', channel: 0 }).seq, order.stamp({ type: 'eof', channel: 0 }).seq]).toEqual([0, 1]);
    expect([eof(0), eof(1), eof(1), eof(3)].map((f) => order.check(f))).toEqual(['next', 'next', 'duplicate', 'gap']);
    expect(order.lost('the cloud')).toBe('frames of the stream from the cloud were lost (number 2 never came)');
  });

  it('takes an end whatever its number, unless frames before it were lost', () => {
    const order = new FrameOrder('s', 5);
    expect(order.check({ type: 'end', stream: 's', seq: 0, end: { error: 'no such stream', reason: 'NotFound' } })).toBe('next');
    expect(new FrameOrder('s', 5).check({ type: 'end', stream: 's', seq: 6, end: { exitCode: 0 } })).toBe('gap');
  });
});

describe('flow control windows', () => {
  it('a sender waits at an empty window until credit comes', async () => {
    const window = new SendWindow(10);
    window.take(10);
    let open = false;
    void window.whenOpen().then(() => (open = true));
    await Promise.resolve();
    expect(open).toBe(false);
    window.grant(4);
    await Promise.resolve();
    expect([open, window.available]).toEqual([true, 4]);
  });

  it('a receiver grants in quarter-window batches and catches a sender beyond the window', () => {
    const window = new ReceiveWindow(100);
    expect(window.received(100)).toBe(true);
    expect([window.passed(20), window.passed(5)]).toEqual([0, 25]);
    expect(window.received(25)).toBe(true);
    expect(window.received(1)).toBe(false);
  });
});
