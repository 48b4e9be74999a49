import { describe, expect, it } from 'vitest';
import { HUB_REJECTED } from '../../cloud/hub/inbound-handler.js';
import { HubStreams, STREAM_LIMITS } from '../../cloud/hub/streams/hub-streams.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters, refusals } from '../../shared/counters.js';
import { silentLogger } from '../../shared/log.js';
import { decodeStreamFrame, encodeStreamFrame, MAX_STREAM_DATA_BYTES, STREAM_WINDOW_BYTES, type StreamFrame } from '../../shared/protocol/stream-frame.js';
import { STDIN, STDOUT, type StreamRequest } from '../../shared/protocol/streams.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Pod } from '../../shared/types.js';
import { settle } from '../support/settle.js';

const exec: StreamRequest = { kind: 'exec', container: 'c1', command: ['sh'], stdin: true, stdout: true, stderr: false, tty: false };
const podOn = (node: string, name = 'x'): Pod => ({ metadata: { namespace: 'default', name, uid: `uid-${name}` }, spec: { nodeName: node, containers: [{ name: 'c1', image: 'i' }] } });

/** HubStreams with a fake link: what it publishes is kept per node, and nodes speak through `fromNode`. */
function harness(limits = STREAM_LIMITS) {
  const clock = new FakeClock();
  const counters = new Counters();
  const sent: { node: string; frame: StreamFrame }[] = [];
  const away = new Map<string, number | undefined>();
  let malformed = 0;
  const streams = new HubStreams({
    clock,
    logger: silentLogger,
    epoch: 'e1',
    publish: (node, payload) => {
      const decoded = decodeStreamFrame(payload);
      if (!decoded.ok) throw new Error(decoded.reason);
      sent.push({ node, frame: decoded.message });
    },
    target: (node) => ({ node, connected: !away.has(node), offlineSince: away.get(node) }),
    reject: refusals(counters, HUB_REJECTED, silentLogger, 'rejected'),
    onMalformed: () => malformed++,
    limits,
  });
  const seqs = new Map<string, number>();
  const fromNode = (node: string, frame: Record<string, unknown> & { type: StreamFrame['type']; stream: string }, seq?: number): void => {
    const key = `${node}/${frame.stream}`;
    const next = seq ?? seqs.get(key) ?? 0;
    seqs.set(key, next + 1);
    streams.receive({ topic: topics.streamUp(node), payload: encodeStreamFrame({ ...frame, seq: next } as StreamFrame), retained: false });
  };
  const sentOf = (type: StreamFrame['type']) => sent.filter((s) => s.frame.type === type).map((s) => s.frame);
  return { clock, counters, sent, away, streams, fromNode, sentOf, malformed: () => malformed };
}

/** Opens a stream on edge-1 and answers it. */
async function opened(h: ReturnType<typeof harness>, inputWindow = STREAM_WINDOW_BYTES) {
  const opening = h.streams.open(podOn('edge-1'), exec);
  const open = h.sentOf('open').at(-1)!;
  h.fromNode('edge-1', { type: 'opened', stream: open.stream, window: inputWindow });
  return { stream: await opening, id: open.stream };
}

describe('the hub opening streams', () => {
  it('sends an open to the pod\'s node and resolves on its opened', async () => {
    const h = harness();
    const { id } = await opened(h);
    expect(h.sent[0]).toEqual({ node: 'edge-1', frame: { type: 'open', stream: id, seq: 0, pod: { namespace: 'default', name: 'x', uid: 'uid-x' }, request: exec, window: STREAM_WINDOW_BYTES } });
    expect(id).toMatch(/^e1\.\d+$/);
    expect(h.streams.size).toBe(1);
  });

  it('rejects at once, naming the node and since when, while the node is away', async () => {
    const h = harness();
    h.away.set('edge-1', h.clock.now() - 180_000);
    const since = new Date(h.clock.now() - 180_000).toISOString();
    await expect(h.streams.open(podOn('edge-1'), exec)).rejects.toMatchObject({ code: 'Unavailable', message: `node "edge-1" is unreachable since ${since} (3m ago): cannot exec into pod default/x` });
    await expect(h.streams.open(podOn('edge-1'), { kind: 'attach', container: 'c1', stdin: false, stdout: true, stderr: true, tty: false })).rejects.toThrow(/cannot attach to pod default\/x$/);
    await expect(h.streams.open(podOn('edge-1'), { kind: 'portforward', port: 80 })).rejects.toThrow(/cannot forward a port of pod default\/x$/);
    expect(h.sent).toEqual([]);
  });

  it('times out after 10 s without an answer, and tells the edge to end it', async () => {
    const h = harness();
    const opening = h.streams.open(podOn('edge-1'), exec);
    const outcome = opening.catch((err: Error) => err);
    await h.clock.advance(9_999);
    expect(h.streams.size).toBe(1);
    await h.clock.advance(1);
    expect(await outcome).toMatchObject({ code: 'Timeout', message: 'node "edge-1" did not answer within 10 s: cannot exec into pod default/x' });
    expect(h.sentOf('end')).toHaveLength(1);
    expect(h.streams.size).toBe(0);
  });

  it("rejects with the edge's reason when it refuses", async () => {
    const h = harness();
    const opening = h.streams.open(podOn('edge-1'), exec);
    h.fromNode('edge-1', { type: 'end', stream: h.sentOf('open')[0]!.stream, end: { error: 'container not found ("c1")', reason: 'NotFound' } });
    await expect(opening).rejects.toMatchObject({ code: 'NotFound', message: 'container not found ("c1")' });
  });

  it('bounds streams per node and per hub', async () => {
    const h = harness({ ...STREAM_LIMITS, perNode: 2, perHub: 3 });
    const pending = [h.streams.open(podOn('edge-1', 'a'), exec), h.streams.open(podOn('edge-1', 'b'), exec)];
    await expect(h.streams.open(podOn('edge-1', 'c'), exec)).rejects.toMatchObject({ code: 'TooManyRequests', message: 'node "edge-1" has 2 streams open, its most: cannot exec into pod default/c' });
    pending.push(h.streams.open(podOn('edge-2', 'd'), exec));
    await expect(h.streams.open(podOn('edge-3', 'e'), exec)).rejects.toMatchObject({ code: 'TooManyRequests', message: 'the cloud hub has 3 streams open, its most: cannot exec into pod default/e' });
    h.streams.close();
    await Promise.allSettled(pending);
    expect(h.streams.size).toBe(0);
  });
});

describe('the hub keeping streams to their node', () => {
  it("rejects and counts a frame of a stream from a node other than the one it was opened to", async () => {
    const h = harness();
    const { stream, id } = await opened(h);
    h.fromNode('edge-2', { type: 'data', stream: id, channel: STDOUT, data: Buffer.from('forged') }, 1);
    h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: Buffer.from('real') });
    expect((await stream.read())?.data.toString()).toBe('real');
    expect(h.counters.get(HUB_REJECTED, { reason: 'stream-of-another-node' })).toBe(1);
  });

  it('drops and counts a malformed frame, never fatal', async () => {
    const h = harness();
    h.streams.receive({ topic: topics.streamUp('edge-1'), payload: Buffer.from('nonsense'), retained: false });
    expect(h.malformed()).toBe(1);
    await opened(h);
  });

  it('ends a stream whose node goes away mid-way with an error naming it', async () => {
    const h = harness();
    const { stream } = await opened(h);
    const writing = stream.write(STDIN, Buffer.alloc(STREAM_WINDOW_BYTES + 1)).catch((err: Error) => err);
    h.streams.nodeAway('edge-1');
    expect(await stream.read()).toBeUndefined();
    expect(await stream.ended).toEqual({ error: 'node "edge-1" went away (its link to the broker was lost)', reason: 'Unavailable' });
    expect(await writing).toMatchObject({ code: 'Unavailable' });
    expect(h.sentOf('end')).toEqual([]); // nobody to tell
  });

  it('ends an opening stream at once when the hub loses its broker', async () => {
    const h = harness();
    const opening = h.streams.open(podOn('edge-1'), exec);
    h.streams.allAway('the cloud hub lost its broker session');
    await expect(opening).rejects.toMatchObject({ code: 'Unavailable', message: 'node "edge-1" went away before it answered (the cloud hub lost its broker session)' });
  });

  it('ends with an error on a gap, and never delivers what comes after it', async () => {
    const h = harness();
    const { stream, id } = await opened(h);
    h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: Buffer.from('one') }, 1);
    h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: Buffer.from('three') }, 3);
    expect((await stream.read())?.data.toString()).toBe('one');
    expect(await stream.read()).toBeUndefined();
    expect(await stream.ended).toMatchObject({ reason: 'InternalError', error: expect.stringContaining('lost') });
    expect(h.sentOf('end')).toHaveLength(1);
  });

  it('ends with the exit code once the output is read; cancel tells the edge', async () => {
    const h = harness();
    const { stream, id } = await opened(h);
    h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: Buffer.from('hi\n') });
    h.fromNode('edge-1', { type: 'end', stream: id, end: { exitCode: 3 } });
    let ended = false;
    void stream.ended.then(() => (ended = true));
    await settle();
    expect(ended).toBe(false);
    expect((await stream.read())?.data.toString()).toBe('hi\n');
    expect(await stream.read()).toBeUndefined();
    expect(await stream.ended).toEqual({ exitCode: 3 });

    const other = await opened(h);
    other.stream.cancel('the client went away');
    expect(h.sentOf('end').at(-1)).toMatchObject({ stream: other.id, end: { error: 'the client went away' } });
    expect(h.streams.size).toBe(0);
  });
});

describe('the hub\'s flow control', () => {
  it('holds the edge to the window while nothing is read, and grants credit as output is read', async () => {
    const h = harness();
    const { stream, id } = await opened(h);
    const chunk = Buffer.alloc(MAX_STREAM_DATA_BYTES);
    for (let i = 0; i < STREAM_WINDOW_BYTES / MAX_STREAM_DATA_BYTES; i++) h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: chunk });
    expect(h.sentOf('credit')).toEqual([]);
    for (let i = 0; i < 2; i++) await stream.read();
    expect(h.sentOf('credit')).toEqual([expect.objectContaining({ bytes: 2 * MAX_STREAM_DATA_BYTES })]);
    h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: chunk });
    h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: chunk });
    h.fromNode('edge-1', { type: 'data', stream: id, channel: STDOUT, data: Buffer.from('one too many') });
    let read = 0;
    while (await stream.read()) read++;
    expect(read).toBe(8); // what came within the window, and nothing beyond
    expect(await stream.ended).toMatchObject({ reason: 'InternalError', error: 'node "edge-1" sent beyond the stream\'s window' });
  });

  it('sends input only within the edge\'s window, and resolves a write once there is room again', async () => {
    const h = harness();
    const { stream, id } = await opened(h, 40_000);
    let written = false;
    const writing = stream.write(STDIN, Buffer.alloc(100_000, 1)).then(() => (written = true));
    await settle();
    const dataBytes = (): number[] => h.sentOf('data').map((f) => (f as Extract<StreamFrame, { type: 'data' }>).data.length);
    expect(dataBytes()).toEqual([MAX_STREAM_DATA_BYTES, 40_000 - MAX_STREAM_DATA_BYTES]);
    h.fromNode('edge-1', { type: 'credit', stream: id, bytes: 50_000 });
    await settle();
    expect(dataBytes().reduce((a, b) => a + b)).toBe(90_000);
    expect(written).toBe(false);
    h.fromNode('edge-1', { type: 'credit', stream: id, bytes: 20_000 });
    await writing;
    expect(dataBytes().reduce((a, b) => a + b)).toBe(100_000);
    expect(dataBytes().every((n) => n <= MAX_STREAM_DATA_BYTES)).toBe(true);
  });
});
