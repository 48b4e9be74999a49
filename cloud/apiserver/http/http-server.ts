import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { realClock, type Clock } from '../../../shared/clock.js';
import { describeTimeout, enforceTimeouts, KUBE_LISTENER_TIMEOUTS, startTimeoutChecks, timeoutOptions, type ListenerTimeouts, type TimeoutReason } from '../../../shared/http-timeouts.js';
import { serveOne, type Exchange, type Refuse } from './http-exchange.js';
import { errorResponse, type ApiHandler, type RequestGate } from '../request.js';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from './response-stream.js';
import type { StreamUpgrade } from '../streams/stream-upgrade.js';
import { upgradeServer, type UpgradeLimits } from './upgrade-server.js';

export interface ApiServerOptions {
  handler: ApiHandler;
  /** Runs on each request's head before its body is read (ApiServer.gate: authentication, in-flight limits). */
  gate: RequestGate;
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Aborting closes the server and every open connection (watches and followed logs included). */
  signal?: AbortSignal;
  /**
   * Also serve HTTPS with this certificate (see tls-cert.ts), on the same port: kubectl sends
   * tokens only over TLS, while curl and scripts may keep using plain http://.
   */
  tls?: { certPem: string; keyPem: string };
  /**
   * With `tls`, refuse plain HTTP (as kube-apiserver does: a 400 saying the server speaks
   * HTTPS) instead of serving it: for a server reachable from other machines.
   */
  tlsOnly?: boolean;
  /** Told of every refusal: plain HTTP to a TLS-only server, 401/403/413/422/429, timeouts, slow streams. */
  refused?: Refuse;
  /** Pages served beside the API (the dashboard): tried first, the API gets what it leaves. */
  pages?: PageHandler;
  /** Default KUBE_LISTENER_TIMEOUTS; the first byte of a connection (and a TLS handshake) gets headersMs. */
  timeouts?: ListenerTimeouts;
  /** Default DEFAULT_STREAM_LIMITS. */
  streamLimits?: StreamLimits;
  /** WebSocket upgrades for pods' exec, attach and portforward (ApiServer.upgrade); without, an upgrade request is a plain one. */
  upgrade?: StreamUpgrade;
  /** Default DEFAULT_UPGRADE_LIMITS. */
  upgradeLimits?: UpgradeLimits;
  /** For the upgraded connections' pings (default the real one). */
  clock?: Clock;
}

/** Answers a request for a page, or returns undefined (and leaves `res` alone) when it is not for one. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | undefined;

export interface RunningApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves an ApiHandler over HTTP, and HTTPS too with `tls`: bodies up to 3 MiB, chunked watches and followed logs. */
export async function startApiServer(options: ApiServerOptions): Promise<RunningApiServer> {
  const host = options.host ?? '127.0.0.1';
  const timeouts = options.timeouts ?? KUBE_LISTENER_TIMEOUTS;
  const refuse: Refuse = options.refused ?? (() => {});
  const exchange: Exchange = { handler: options.handler, gate: options.gate, timeouts, streamLimits: options.streamLimits ?? DEFAULT_STREAM_LIMITS, refuse, streams: new Set() };
  const listener = (req: IncomingMessage, res: ServerResponse): void => void (servePage(options.pages, req, res) ?? serveOne(exchange, req, res));
  const onTimeout = (reason: TimeoutReason, socket: Socket): void => refuse(reason, describeTimeout(reason, timeouts), { peer: socket.remoteAddress });
  const plain = createServer(timeoutOptions(timeouts), listener);
  const secure = options.tls && createTlsServer({ cert: options.tls.certPem, key: options.tls.keyPem, handshakeTimeout: timeouts.headersMs, ...timeoutOptions(timeouts) }, listener);
  const upgrades = options.upgrade && upgradeServer(options.upgrade, listener, refuse, options.clock ?? realClock, options.upgradeLimits);
  for (const s of secure ? [plain, secure] : [plain]) {
    if (upgrades) s.on('upgrade', upgrades.onUpgrade);
    s.on('checkContinue', listener); // "100 Continue" only once the gate has let the request in (serveOne)
    enforceTimeouts(s, timeouts, onTimeout);
    startTimeoutChecks(s);
  }
  const sockets = new Set<Socket>();
  const server = createNetServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const onPlain = options.tlsOnly && secure ? refusePlain(refuse) : (s: Socket) => plain.emit('connection', s);
    dispatchByFirstByte(socket, onPlain, secure || undefined, timeouts.headersMs, () => onTimeout('header-timeout', socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: unknown) => {
    upgrades?.closeAll(); // its ping timer would keep a process that could not listen alive
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      for (const s of exchange.streams) s.unsubscribe();
      exchange.streams.clear();
      upgrades?.closeAll();
      for (const s of secure ? [plain, secure] : [plain]) s.close(() => {}); // stops their timeout checks; they never listened
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }));
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  if (options.signal?.aborted) await close();
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host; // a wildcard address is not one to connect to
  const urlHost = reachable.includes(':') ? `[${reachable}]` : reachable;
  return { url: `${options.tls ? 'https' : 'http'}://${urlHost}:${port}`, port, close };
}

function servePage(pages: PageHandler | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
  return pages?.(req, res)?.catch((err: unknown) => {
    if (res.headersSent) return void res.destroy();
    const status = errorResponse(err);
    res.writeHead(status.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(status.type === 'json' ? status.body : {}));
  });
}

/**
 * A TLS connection starts with a handshake record (0x16); anything else is plain HTTP. A
 * connection that sends nothing within `waitMs` is dropped.
 */
function dispatchByFirstByte(socket: Socket, onPlain: (socket: Socket) => void, secure: Server | undefined, waitMs: number, onSilent: () => void): void {
  socket.setTimeout(waitMs, () => {
    onSilent();
    socket.destroy();
  });
  socket.once('data', (first: Buffer) => {
    socket.setTimeout(0);
    socket.removeAllListeners('timeout');
    socket.pause();
    socket.unshift(first);
    if (first[0] === 0x16 && secure) secure.emit('connection', socket);
    else onPlain(socket);
    process.nextTick(() => socket.resume());
  });
}

/** How long a refused connection may take to hang up. */
const REFUSED_LINGER_MS = 5000;
const PLAIN_REFUSAL = 'HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

function refusePlain(refuse: Refuse): (socket: Socket) => void {
  return (socket) => {
    refuse('plain-http', 'plain HTTP on the TLS-only API port', { peer: socket.remoteAddress ?? 'unknown' });
    socket.resume(); // read and drop the request: closing with unread bytes would reset the connection before the answer
    socket.end(PLAIN_REFUSAL);
    socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
  };
}
