import { STDIN, type StreamEnd, type StreamRequest } from '../../../shared/protocol/streams.js';
import type { PodStream } from '../subresources/pod-streams.js';
import { channelFrame, endStatus, ERROR_CHANNEL, firstWritableChannel, parseClientFrame } from './channel-frames.js';
import { inputGate, sendBounded, serialQueue, type StreamSocket } from './stream-socket.js';

/** How much a session holds: output queued on the socket, input waiting for the pod. */
export interface ChannelLimits {
  /** Output bytes queued on the socket before reading more from the pod. */
  sendBufferBytes: number;
  /** Input bytes waiting for the pod before the socket stops being read. */
  inputBufferBytes: number;
}

export const DEFAULT_CHANNEL_LIMITS: ChannelLimits = { sendBufferBytes: 256 * 1024, inputBufferBytes: 256 * 1024 };

/**
 * Serves one exec or attach over v5.channel.k8s.io: an empty first message on the lowest
 * writable channel; stdin, resize and stdin's close from the client; stdout and stderr as the
 * pod writes them; at the end one channel-3 Status and a normal close (1000), which kubectl
 * needs to see its end of file. The client going away cancels the stream.
 *
 * Nothing is sent before the client has answered a ping. client-go (kubectl 1.32) starts
 * reading as it makes its streams, and drops what arrives for a stream not made yet (`Unknown
 * stream id`; a close before them fails the command: `closed all streams`). kube-apiserver
 * writes its 101 before it dials the kubelet, so the process starts, and its output comes, a
 * kubelet round trip later; kedge starts the process before its 101 (to refuse with a Status),
 * so output can be waiting, and a hop in between (a standby's forward) can hand the client the
 * 101, the output and the close at once. The pong means the client has read the 101 and its
 * reader runs: its streams have had a round trip through every hop, as kube's have.
 */
export async function serveChannels(socket: StreamSocket, stream: PodStream, request: StreamRequest, limits: ChannelLimits = DEFAULT_CHANNEL_LIMITS): Promise<void> {
  let gone = false;
  socket.onClose(() => {
    gone = true;
    stream.cancel('the client closed the connection');
  });
  socket.onMessage(inputHandler(socket, stream, request, limits.inputBufferBytes));
  await socket.roundTrip();
  if (gone) return;
  void socket.send(channelFrame(firstWritableChannel(request)));
  const end = await pumpOutput(socket, stream, limits.sendBufferBytes, () => gone);
  if (gone) return;
  await socket.send(channelFrame(ERROR_CHANNEL, Buffer.from(JSON.stringify(endStatus(end, request)))));
  socket.close(1000);
}

async function pumpOutput(socket: StreamSocket, stream: PodStream, limit: number, gone: () => boolean): Promise<StreamEnd> {
  try {
    for (let chunk = await stream.read(); chunk && !gone(); chunk = await stream.read()) {
      await sendBounded(socket, channelFrame(chunk.channel, chunk.data), limit);
    }
    return await stream.ended;
  } catch (err) {
    stream.cancel('the session failed');
    return { error: err instanceof Error ? err.message : String(err), reason: 'InternalError' };
  }
}

/** Client messages in order; stdin waits for the pod, and the socket pauses while too much waits. */
function inputHandler(socket: StreamSocket, stream: PodStream, request: StreamRequest, limit: number): (message: Buffer) => void {
  const stdin = request.kind !== 'portforward' && request.stdin;
  const later = serialQueue();
  const gate = inputGate(socket, limit);
  return (message) => {
    const frame = parseClientFrame(message);
    if (frame.kind === 'resize') stream.resize(frame.width, frame.height);
    else if (frame.kind === 'close' && frame.channel === STDIN && stdin) later(() => stream.closeInput(STDIN));
    else if (frame.kind === 'data' && frame.channel === STDIN && stdin && frame.data.length > 0) {
      gate(later, frame.data.length, () => stream.write(STDIN, frame.data));
    }
  };
}
