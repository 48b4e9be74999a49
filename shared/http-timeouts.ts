import type { IncomingMessage, Server as HttpServer, ServerOptions, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

/**
 * How long an HTTP listener waits on its peers, in ms. The defaults are kube-apiserver's: its
 * http.Server reads headers within 32 s (ReadHeaderTimeout, also the TLS handshake's limit) and
 * closes keep-alive connections idle for 90 s (IdleTimeout); a request gets 60 s
 * (--request-timeout).
 */
export interface ListenerTimeouts {
  /** From a connection's first byte (or a request's) until the request's headers are in. */
  headersMs: number;
  /** Until the whole request, body included, is in. */
  requestMs: number;
  /** How long a keep-alive connection may wait, idle, for its next request. */
  keepAliveMs: number;
  /**
   * The longest silence (nothing read, nothing written) while a request is open: a peer that
   * stops reading its answer is dropped. Long-lived streams switch it off (see streamStarted).
   */
  idleMs: number;
}

export const KUBE_LISTENER_TIMEOUTS: ListenerTimeouts = { headersMs: 32_000, requestMs: 60_000, keepAliveMs: 90_000, idleMs: 60_000 };

/** Why a connection was dropped on a timeout. */
export type TimeoutReason = 'header-timeout' | 'request-timeout' | 'idle-timeout' | 'handshake-timeout';

export type OnTimeout = (reason: TimeoutReason, socket: Socket) => void;

/** What happened, in words, for a log line. */
export function describeTimeout(reason: TimeoutReason, timeouts: ListenerTimeouts): string {
  const what: Record<TimeoutReason, string> = {
    'header-timeout': `no complete request headers within ${timeouts.headersMs} ms`,
    'handshake-timeout': `no TLS handshake within ${timeouts.headersMs} ms`,
    'request-timeout': `a request not all in within ${timeouts.requestMs} ms`,
    'idle-timeout': `${timeouts.idleMs} ms of silence while a request was open`,
  };
  return `${what[reason]}: connection dropped`;
}

/** The node server options for `timeouts` (give them to createServer). */
export function timeoutOptions(timeouts: ListenerTimeouts): Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionsCheckingInterval'> {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: Math.max(timeouts.requestMs, timeouts.headersMs),
    keepAliveTimeout: timeouts.keepAliveMs,
    // node looks for expired headers and requests this often (30 s by default: half a limit late)
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
  };
}

/** What each connection is doing: its latest request and answer. */
type Exchanges = WeakMap<Socket, { req: IncomingMessage; res: ServerResponse }>;

/**
 * Drops connections that stay silent (idleMs) while a request is open, and hears of every
 * connection node drops for slow headers, a slow request or a slow TLS handshake. A
 * keep-alive connection closed when idle is routine, and not reported.
 */
export function enforceTimeouts(server: HttpServer | HttpsServer, timeouts: ListenerTimeouts, onTimeout: OnTimeout = () => {}): void {
  const exchanges: Exchanges = new WeakMap();
  const opened = (req: IncomingMessage, res: ServerResponse): void => void exchanges.set(req.socket, { req, res });
  server.on('request', opened);
  server.on('checkContinue', opened);
  server.setTimeout(timeouts.idleMs, (socket: Socket) => {
    const open = exchanges.get(socket);
    if (!open) onTimeout('header-timeout', socket);
    else if (!open.res.writableFinished) onTimeout('idle-timeout', socket);
    socket.destroy();
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const open = exchanges.get(socket);
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') onTimeout(open && !open.req.complete ? 'request-timeout' : 'header-timeout', socket);
    if (err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') onTimeout('handshake-timeout', socket);
    const answered = open !== undefined && !open.res.writableFinished && open.res.headersSent;
    const answer = clientErrorAnswer(err.code);
    if (answer && socket.writable && !answered) socket.end(answer);
    socket.destroy();
  });
}

/**
 * node starts its header and request checks when a server listens; a server that never does,
 * being handed its connections (by a plain-or-TLS dispatcher), needs them started. Its close()
 * stops them.
 */
export function startTimeoutChecks(server: HttpServer | HttpsServer): void {
  server.emit('listening');
}

/** A stream is long-lived by design: the idle limit does not apply to it (it has its own rules). */
export function streamStarted(res: ServerResponse): void {
  res.socket?.setTimeout(0);
}

/** After a stream is cut off, its peer has `idleMs` to take what was already written. */
export function streamEnded(res: ServerResponse, timeouts: ListenerTimeouts): void {
  res.socket?.setTimeout(timeouts.idleMs);
}

/** node's own answers to a client error: nothing for a TLS failure (no HTTP spoken yet). */
function clientErrorAnswer(code: string | undefined): string | undefined {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';
  if (code === 'HPE_HEADER_OVERFLOW') return 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n';
  if (code?.startsWith('HPE_')) return 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';
  return undefined;
}
