import { describe, expect, it, vi } from 'vitest';
import { servePortForward } from '../../../cloud/apiserver/streams/portforward-session.js';
import { dataFrame, pingFrame, rstStreamFrame, SpdyFrameReader, synStreamFrame, type SpdyFrame } from '../../../cloud/apiserver/streams/spdy-frames.js';
import { HeaderZlib } from '../../../cloud/apiserver/streams/spdy-headers.js';
import type { PodStream, PodStreams } from '../../../cloud/apiserver/subresources/pod-streams.js';
import { KedgeError } from '../../../shared/errors.js';
import type { StreamRequest } from '../../../shared/protocol/streams.js';
import type { Pod } from '../../../shared/types.js';
import { FakeStreamSocket } from '../../support/fake-stream-socket.js';
import { ScriptedPodStream } from '../../support/scripted-pod-stream.js';

const pod: Pod = { metadata: { namespace: 'default', name: 'p', uid: 'u1' }, spec: { nodeName: 'edge-1', containers: [{ name: 'c', image: 'i' }] } };

/** kubectl's side of the session: SYN_STREAMs with compressed headers, and what came back, decoded. */
class Client {
  readonly socket = new FakeStreamSocket();
  private readonly zlib = new HeaderZlib();
  private readonly serverZlib = new HeaderZlib();

  async open(streamId: number, streamtype: 'error' | 'data', requestid: string, port = '80'): Promise<void> {
    this.socket.receive(synStreamFrame(streamId, await this.zlib.compress({ streamtype, port, requestid }), false));
  }

  private readonly reader = new SpdyFrameReader(1 << 20);
  private readonly frames: (SpdyFrame | { type: 'syn_reply'; streamId: number; headers: Record<string, string> })[] = [];
  private seen = 0;

  /** Every frame the server sent so far (each header block inflated once, in order, as the shared context needs). */
  async received(): Promise<(SpdyFrame | { type: 'syn_reply'; streamId: number; headers: Record<string, string> })[]> {
    const fresh = this.socket.sent.slice(this.seen);
    this.seen = this.socket.sent.length;
    for (const f of this.reader.push(Buffer.concat(fresh))) {
      this.frames.push(f.type === 'syn_reply' ? { type: 'syn_reply' as const, streamId: f.streamId, headers: await this.serverZlib.decompress(f.headerBlock) } : f);
    }
    return [...this.frames];
  }

  close(): void {
    this.zlib.close();
    this.serverZlib.close();
  }
}

function streamsOf(open: (request: StreamRequest) => Promise<PodStream>): PodStreams & { requests: StreamRequest[] } {
  const requests: StreamRequest[] = [];
  return { requests, open: (_pod, request) => (requests.push(request), open(request)) };
}

describe('port-forward over SPDY/3 in WebSocket', () => {
  it('pairs the error and data streams by requestid, forwards both ways, and ends both with FIN', async () => {
    const client = new Client();
    const stream = new ScriptedPodStream();
    const streams = streamsOf(async () => stream);
    servePortForward(client.socket, pod, streams);
    await client.open(1, 'error', '0');
    await client.open(3, 'data', '0');
    client.socket.receive(dataFrame(3, Buffer.from('GET / HTTP/1.0\r\n\r\n'), false));
    client.socket.receive(pingFrame(1));
    await vi.waitFor(() => expect(stream.input).toHaveLength(1));
    expect(streams.requests).toEqual([{ kind: 'portforward', port: 80 }]);
    expect(Buffer.concat(stream.input).toString()).toBe('GET / HTTP/1.0\r\n\r\n');
    stream.output(1, 'HTTP/1.0 200 OK\r\n\r\n');
    client.socket.receive(dataFrame(3, Buffer.alloc(0), true));
    await vi.waitFor(() => expect(stream.inputClosed).toBe(true));
    stream.end({ exitCode: 0 });
    await vi.waitFor(async () => expect((await client.received()).length).toBe(6));
    expect(await client.received()).toEqual([
      { type: 'syn_reply', streamId: 1, headers: {} },
      { type: 'syn_reply', streamId: 3, headers: {} },
      { type: 'ping', id: 1 },
      { type: 'data', streamId: 3, fin: false, data: Buffer.from('HTTP/1.0 200 OK\r\n\r\n') },
      { type: 'data', streamId: 1, fin: true, data: Buffer.alloc(0) },
      { type: 'data', streamId: 3, fin: true, data: Buffer.alloc(0) },
    ]);
    client.close();
  });

  it('writes why the pod could not be reached on the error stream (kubectl prints it)', async () => {
    const client = new Client();
    servePortForward(client.socket, pod, streamsOf(() => Promise.reject(new KedgeError('Unavailable', 'node "edge-1" is unreachable'))));
    await client.open(1, 'error', '7', '5432');
    await client.open(3, 'data', '7', '5432');
    const frames = await vi.waitFor(async () => {
      const got = await client.received();
      expect(got.at(-1)).toMatchObject({ streamId: 3, fin: true });
      return got;
    });
    expect(frames).toContainEqual({ type: 'data', streamId: 1, fin: false, data: Buffer.from('error forwarding port 5432 to pod default/p, uid u1: node "edge-1" is unreachable') });
    expect(frames.slice(-2)).toEqual([{ type: 'data', streamId: 1, fin: true, data: Buffer.alloc(0) }, { type: 'data', streamId: 3, fin: true, data: Buffer.alloc(0) }]);
    client.close();
  });

  it('refuses connections past its bound, and cancels every stream when the client goes away', async () => {
    const client = new Client();
    const opened: ScriptedPodStream[] = [];
    servePortForward(client.socket, pod, streamsOf(async () => opened[opened.push(new ScriptedPodStream()) - 1]!), {
      connections: 1, sendBufferBytes: 1024, inputBufferBytes: 1024, maxFrameBytes: 1024,
    });
    await client.open(1, 'error', '0');
    await client.open(3, 'data', '0');
    await client.open(5, 'error', '1');
    await client.open(7, 'data', '1');
    await vi.waitFor(async () => expect(await client.received()).toContainEqual({ type: 'data', streamId: 7, fin: true, data: Buffer.alloc(0) }));
    expect(opened).toHaveLength(1);
    expect(await client.received()).toContainEqual({ type: 'data', streamId: 5, fin: false, data: Buffer.from('too many forwarded connections: at most 1 at once') });
    client.socket.drop();
    expect(opened[0]!.cancelled).toBe('the client closed the connection');
    client.close();
  });

  it('cancels a pair the client resets, and refuses a stream without its headers', async () => {
    const client = new Client();
    const stream = new ScriptedPodStream();
    servePortForward(client.socket, pod, streamsOf(async () => stream));
    await client.open(1, 'error', '0');
    await client.open(3, 'data', '0');
    await vi.waitFor(async () => expect(await client.received()).toHaveLength(2));
    client.socket.receive(rstStreamFrame(3, 5));
    await vi.waitFor(() => expect(stream.cancelled).toBe('the client reset the stream'));
    await client.open(5, 'data', '1', 'not-a-port');
    await vi.waitFor(async () => expect(await client.received()).toContainEqual({ type: 'rst_stream', streamId: 5, status: 3 }));
    client.close();
  });
});
