import { ServerResponse, STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Clock } from '../../../shared/clock.js';
import type { KubeStatus } from '../../../shared/errors.js';
import type { StreamSocket } from '../streams/stream-socket.js';
import type { StreamUpgrade } from '../streams/stream-upgrade.js';
import { forwardUpgrade } from '../forward/forward-upgrade.js';
import { errorResponse, type ApiResponse } from '../request.js';
import { headOf, refusalReasons, type Refuse } from './http-exchange.js';
import { tooManyRequests } from './inflight.js';

export interface UpgradeLimits {
  /** Upgraded connections (exec, attach, port-forward) open at once, and upgrade requests being decided. */
  connections: number;
  /** How often the server pings an idle client; one that has not answered the previous ping by then is dropped. */
  pingMs: number;
}

export const DEFAULT_UPGRADE_LIMITS: UpgradeLimits = { connections: 256, pingMs: 30_000 };

/** The 'upgrade' listener of the API's HTTP servers, and how to end every upgraded connection. */
export interface UpgradeServer {
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  closeAll(): void;
}

/**
 * WebSocket upgrades for pods' exec, attach and portforward: decided (authentication,
 * authorization, the pod, the stream opened) before the 101, refused with a Status otherwise.
 * A request to any other path that happens to ask for an upgrade is served as a plain request.
 */
export function upgradeServer(upgrade: StreamUpgrade, plain: (req: IncomingMessage, res: ServerResponse) => void, refuse: Refuse, clock: Clock, limits = DEFAULT_UPGRADE_LIMITS): UpgradeServer {
  const chosen = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({ noServer: true, clientTracking: true, handleProtocols: (_offered, req) => chosen.get(req) ?? false });
  let open = 0;
  const awaiting = new WeakSet<WebSocket>();
  const stopPings = clock.setRepeating(limits.pingMs, () => wss.clients.forEach((ws) => heartbeat(ws, awaiting)));

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const apiReq = headOf(req);
    if (!upgrade.handles(apiReq.path)) return servePlain(req, socket, plain);
    const seen = { method: apiReq.method, path: apiReq.path, peer: req.socket.remoteAddress };
    if (open >= limits.connections) return refuseWith(socket, errorResponse(tooManyRequests()), refuse, seen);
    open++;
    let gone = false;
    socket.once('close', () => {
      open--;
      gone = true;
    });
    (socket as { setTimeout?: (ms: number) => void }).setTimeout?.(0); // long-running: the listener's idle limit is off, pings take its place
    void upgrade.decide(apiReq).then((answer) => {
      if ('refusal' in answer) return refuseWith(socket, answer.refusal, refuse, seen);
      if ('forward' in answer) return forwardUpgrade(answer.forward, answer.caPem, req, socket, head, (err) => refuseWith(socket, errorResponse(err), refuse, seen));
      if (gone) return answer.abandon(); // the client left while the stream was opening
      chosen.set(req, answer.protocol);
      // Decided already (handleProtocols answers it); and ws would refuse port-forward's offer as it stands:
      // "/" is no token character (RFC 7230), though Go's websocket takes it.
      req.headers['sec-websocket-protocol'] = 'chosen';
      let accepted = false;
      socket.once('close', () => accepted || answer.abandon());
      wss.handleUpgrade(req, socket, head, (ws) => {
        accepted = true;
        ws.on('pong', () => awaiting.delete(ws));
        answer.serve(streamSocketOf(ws));
      });
    });
  };
  return {
    onUpgrade,
    closeAll() {
      stopPings();
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

/** Pings each client; one that has not answered the previous ping is dropped (kubectl pings too, and answers ours). */
function heartbeat(ws: WebSocket, awaiting: WeakSet<WebSocket>): void {
  if (awaiting.has(ws)) return void ws.terminate();
  awaiting.add(ws);
  ws.ping();
}

/** A Status answer on the raw socket, and hang up (kubectl prints it, after its SPDY retry gets it too). */
function refuseWith(socket: Duplex, res: ApiResponse, refuse: Refuse, seen: Record<string, string | undefined>): void {
  const body = JSON.stringify(res.type === 'json' ? res.body : {});
  const status = res.status;
  const reason = refusalReasons[status];
  const message = res.type === 'json' ? (res.body as Partial<KubeStatus>).message : undefined;
  if (reason) refuse(reason, String(message ?? reason), seen);
  const retryAfter = res.type === 'json' ? (res.body as Partial<KubeStatus>).details?.retryAfterSeconds : undefined;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-cache, private',
    ...(retryAfter !== undefined ? [`Retry-After: ${retryAfter}`] : []),
    'Connection: close',
  ];
  if (socket.writable) socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  else socket.destroy();
}

/** An ordinary request that asked for an upgrade kedge does not do there (h2c, say): answered over HTTP/1.1, then closed. */
function servePlain(req: IncomingMessage, socket: Duplex, plain: (req: IncomingMessage, res: ServerResponse) => void): void {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as never);
  res.once('finish', () => {
    res.detachSocket(socket as never);
    socket.end();
  });
  plain(req, res);
}

/** A ping, then the next pong (or the connection's close). */
function roundTrip(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (ws.readyState !== ws.OPEN) return resolve();
    const done = (): void => {
      ws.off('pong', done).off('close', done);
      resolve();
    };
    ws.on('pong', done).on('close', done);
    ws.ping();
  });
}

function streamSocketOf(ws: WebSocket): StreamSocket {
  return {
    send: (data) => new Promise((resolve) => ws.send(data, { binary: true }, () => resolve())),
    bufferedAmount: () => ws.bufferedAmount,
    roundTrip: () => roundTrip(ws),
    close: (code, reason) => ws.close(code, reason),
    pause: () => ws.pause(),
    resume: () => ws.resume(),
    onMessage: (listener) => ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => listener(Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data))),
    onClose: (listener) => ws.once('close', listener),
  };
}
