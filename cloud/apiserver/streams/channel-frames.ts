import { errorTable, type ErrorCode } from '../../../shared/errors.js';
import type { StreamEnd, StreamErrorReason, StreamRequest } from '../../../shared/protocol/streams.js';

/** The WebSocket subprotocol of exec and attach (kubectl 1.30+; apimachinery remotecommand v5). */
export const CHANNEL_PROTOCOL = 'v5.channel.k8s.io';

/** Channels of v5.channel.k8s.io beyond stdin, stdout and stderr (shared/protocol/streams.ts). */
export const ERROR_CHANNEL = 3;
export const RESIZE_CHANNEL = 4;
/** A message `[255, ch]` says the client closed its channel `ch` (stdin's end of file). */
export const CLOSE_CHANNEL = 255;

/** One binary message: the channel byte, then the payload. */
export function channelFrame(channel: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([Buffer.from([channel]), payload]);
}

/** What a client message asks for. */
export type ClientFrame =
  | { kind: 'data'; channel: number; data: Buffer }
  | { kind: 'resize'; width: number; height: number }
  | { kind: 'close'; channel: number }
  | { kind: 'ignored' };

export function parseClientFrame(message: Buffer): ClientFrame {
  if (message.length === 0) return { kind: 'ignored' };
  const channel = message[0]!;
  const payload = message.subarray(1);
  if (channel === CLOSE_CHANNEL) return payload.length === 1 ? { kind: 'close', channel: payload[0]! } : { kind: 'ignored' };
  if (channel === RESIZE_CHANNEL) return resizeOf(payload);
  return { kind: 'data', channel, data: payload };
}

/** `{"Width":W,"Height":H}` (client-go's TerminalSize has no json tags). */
function resizeOf(payload: Buffer): ClientFrame {
  try {
    const size = JSON.parse(payload.toString()) as { Width?: unknown; Height?: unknown };
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffff;
    return ok(size.Width) && ok(size.Height) ? { kind: 'resize', width: size.Width, height: size.Height } : { kind: 'ignored' };
  } catch {
    return { kind: 'ignored' };
  }
}

/** The lowest channel the server writes, on which kube-apiserver sends an empty first message. */
export function firstWritableChannel(request: StreamRequest): number {
  if (request.kind === 'portforward') return ERROR_CHANNEL;
  return request.stdout ? 1 : request.stderr ? 2 : ERROR_CHANNEL;
}

const codeOfReason: Record<StreamErrorReason, ErrorCode> = {
  NotFound: 'NotFound', BadRequest: 'BadRequest', Unavailable: 'Unavailable', Timeout: 'Timeout', TooManyRequests: 'TooManyRequests', InternalError: 'Internal',
};

/**
 * The channel-3 Status that ends a session, as the kubelet writes it: Success; NonZeroExitCode
 * with the code as an ExitCode cause (kubectl exits with it); or a Failure with the error.
 */
export function endStatus(end: StreamEnd, request: StreamRequest): Record<string, unknown> {
  if ('error' in end) {
    const code = codeOfReason[end.reason];
    const { status, reason } = errorTable[code];
    return { metadata: {}, status: 'Failure', message: end.error, reason, code: status };
  }
  if (end.exitCode === 0) return { metadata: {}, status: 'Success' };
  const what = request.kind === 'exec' ? `error executing command [${request.command.join(' ')}], exit code ${end.exitCode}` : `exit code ${end.exitCode}`;
  return {
    metadata: {}, status: 'Failure', message: `command terminated with non-zero exit code: ${what}`, reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(end.exitCode) }] },
  };
}
