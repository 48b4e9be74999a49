import { describe, expect, it } from 'vitest';
import { channelFrame, endStatus, parseClientFrame } from '../../../cloud/apiserver/streams/channel-frames.js';
import { serveChannels } from '../../../cloud/apiserver/streams/channel-session.js';
import type { StreamRequest } from '../../../shared/protocol/streams.js';
import { settle } from '../../support/settle.js';
import { FakeStreamSocket } from '../../support/fake-stream-socket.js';
import { ScriptedPodStream } from '../../support/scripted-pod-stream.js';

const exec: StreamRequest = { kind: 'exec', container: 'c', command: ['sh', '-c', 'exit 3'], stdin: true, stdout: true, stderr: true, tty: false };

describe('v5.channel.k8s.io frames', () => {
  it('reads stdin, resize and close frames from the client', () => {
    expect(parseClientFrame(Buffer.from([0, 104, 105]))).toEqual({ kind: 'data', channel: 0, data: Buffer.from('hi') });
    expect(parseClientFrame(channelFrame(4, Buffer.from('{"Width":80,"Height":24}')))).toEqual({ kind: 'resize', width: 80, height: 24 });
    expect(parseClientFrame(Buffer.from([255, 0]))).toEqual({ kind: 'close', channel: 0 });
    expect(parseClientFrame(channelFrame(4, Buffer.from('{"Width":-1}')))).toEqual({ kind: 'ignored' });
    expect(parseClientFrame(Buffer.alloc(0))).toEqual({ kind: 'ignored' });
  });

  it('ends with the kubelet\'s Status: Success, NonZeroExitCode with an ExitCode cause, or the error', () => {
    expect(endStatus({ exitCode: 0 }, exec)).toEqual({ metadata: {}, status: 'Success' });
    expect(endStatus({ exitCode: 3 }, exec)).toEqual({
      metadata: {}, status: 'Failure', reason: 'NonZeroExitCode',
      message: 'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
    expect(endStatus({ error: 'node "edge-1" went away', reason: 'Unavailable' }, exec)).toEqual({
      metadata: {}, status: 'Failure', message: 'node "edge-1" went away', reason: 'ServiceUnavailable', code: 503,
    });
  });
});

describe('a v5 session', () => {
  it('sends the empty first frame, the output, one Status on channel 3, then closes normally', async () => {
    const socket = new FakeStreamSocket();
    const stream = new ScriptedPodStream();
    const done = serveChannels(socket, stream, exec);
    stream.output(1, 'hi\n');
    stream.output(2, 'oops\n');
    stream.end({ exitCode: 3 });
    await done;
    expect(socket.sent.map((b) => [b[0], b.subarray(1).toString()])).toEqual([
      [1, ''], [1, 'hi\n'], [2, 'oops\n'], [3, JSON.stringify(endStatus({ exitCode: 3 }, exec))],
    ]);
    expect(socket.closedWith).toBe(1000);
  });

  it('sends nothing, not even the first frame, until the client has answered a ping: kubectl 1.32 drops what comes before its streams', async () => {
    const socket = new FakeStreamSocket(true, false);
    const stream = new ScriptedPodStream();
    stream.output(1, 'hi\n'); // the whole exec is over before the 101 reached the client
    stream.end({ exitCode: 0 });
    const done = serveChannels(socket, stream, exec);
    await settle();
    expect([socket.pings, socket.sent.length, socket.closedWith]).toEqual([1, 0, undefined]);
    socket.pong();
    await done;
    expect(socket.sent.map((b) => [b[0], b.subarray(1).toString()])).toEqual([[1, ''], [1, 'hi\n'], [3, JSON.stringify(endStatus({ exitCode: 0 }, exec))]]);
    expect(socket.closedWith).toBe(1000);
  });

  it('sends nothing to a client that goes away before it answers the ping, and cancels the stream', async () => {
    const socket = new FakeStreamSocket(true, false);
    const stream = new ScriptedPodStream();
    const done = serveChannels(socket, stream, exec);
    await settle();
    socket.drop();
    await done;
    expect([socket.sent.length, socket.closedWith, stream.cancelled]).toEqual([0, undefined, 'the client closed the connection']);
  });

  it('passes stdin, resizes and stdin\'s end to the stream, in order', async () => {
    const socket = new FakeStreamSocket();
    const stream = new ScriptedPodStream();
    void serveChannels(socket, stream, exec);
    socket.receive(channelFrame(0, Buffer.from('abc')));
    socket.receive(channelFrame(4, Buffer.from('{"Width":100,"Height":40}')));
    socket.receive(Buffer.from([255, 0]));
    await settle();
    expect(Buffer.concat(stream.input).toString()).toBe('abc');
    expect(stream.resizes).toEqual([[100, 40]]);
    expect(stream.inputClosed).toBe(true);
    stream.end({ exitCode: 0 });
  });

  it('reads no more output while the client has too much unread, and pauses reading the client while the pod is behind', async () => {
    const socket = new FakeStreamSocket(false);
    const stream = new ScriptedPodStream();
    let openWindow!: () => void;
    stream.holdWrites(new Promise((resolve) => (openWindow = resolve)));
    void serveChannels(socket, stream, exec, { sendBufferBytes: 4, inputBufferBytes: 4 });
    stream.output(1, 'more than four');
    stream.output(1, 'and more');
    await settle();
    const readsWhileBehind = stream.reads;
    expect(socket.sent).toHaveLength(2); // the empty first frame and the first chunk
    socket.flush();
    await settle();
    expect(stream.reads).toBeGreaterThan(readsWhileBehind);
    expect(socket.sent).toHaveLength(3);
    socket.receive(channelFrame(0, Buffer.from('12345')));
    expect(socket.paused).toBe(true);
    openWindow();
    await settle();
    expect(socket.paused).toBe(false);
    stream.end({ exitCode: 0 });
  });

  it('cancels the stream when the client goes away', async () => {
    const socket = new FakeStreamSocket();
    const stream = new ScriptedPodStream();
    const done = serveChannels(socket, stream, exec);
    socket.drop();
    await done;
    expect(stream.cancelled).toBe('the client closed the connection');
    expect(socket.closedWith).toBeUndefined();
  });
});
