import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { catchError, map, of, startWith, Subscription, type Observable } from 'rxjs';
import { toKubeStatus } from '../../shared/errors.js';
import { MAX_BODY_BYTES, errorResponse, type ApiHandler, type ApiRequest, type ApiResponse, type WireWatchEvent } from './request.js';
import { tooLarge } from './request-body.js';

export interface ApiServerOptions {
  handler: ApiHandler;
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
  /** Told of every connection refused for speaking plain HTTP to a TLS-only server. */
  onPlainRefused?: (remoteAddress: string) => void;
  /** Pages served beside the API (the dashboard): tried first, the API gets what it leaves. */
  pages?: PageHandler;
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
  const streams = new Set<Subscription>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => void (servePage(options.pages, req, res) ?? serveOne(options.handler, req, res, streams));
  const plain = createServer(listener);
  const secure = options.tls && createTlsServer({ cert: options.tls.certPem, key: options.tls.keyPem }, listener);
  const sockets = new Set<Socket>();
  const server = createNetServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const onPlain = options.tlsOnly && secure ? refusePlain(options.onPlainRefused) : (s: Socket) => plain.emit('connection', s);
    dispatchByFirstByte(socket, onPlain, secure || undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      for (const s of streams) s.unsubscribe();
      streams.clear();
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
    if (!res.headersSent) write(res, errorResponse(err), new Set(), false);
    else res.destroy();
  });
}

/** A TLS connection starts with a handshake record (0x16); anything else is plain HTTP. */
function dispatchByFirstByte(socket: Socket, onPlain: (socket: Socket) => void, secure: Server | undefined): void {
  socket.once('data', (first: Buffer) => {
    socket.pause();
    socket.unshift(first);
    if (first[0] === 0x16 && secure) secure.emit('connection', socket);
    else onPlain(socket);
    process.nextTick(() => socket.resume());
  });
}

const PLAIN_REFUSAL = 'HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

function refusePlain(onRefused: ((remoteAddress: string) => void) | undefined): (socket: Socket) => void {
  return (socket) => {
    onRefused?.(socket.remoteAddress ?? 'unknown');
    socket.resume(); // read and drop the request: closing with unread bytes would reset the connection before the answer
    socket.end(PLAIN_REFUSAL);
  };
}

async function serveOne(handler: ApiHandler, req: IncomingMessage, res: ServerResponse, streams: Set<Subscription>): Promise<void> {
  try {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    const apiReq: ApiRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers };
    if (body.length > 0) apiReq.body = body;
    write(res, await handler(apiReq), streams, req.method === 'HEAD');
  } catch (err) {
    if (!res.headersSent) write(res, errorResponse(err), streams, false);
    else res.destroy();
  }
}

/** Reads the request body, refusing more than MAX_BODY_BYTES (413) without buffering it all. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function write(res: ServerResponse, out: ApiResponse, streams: Set<Subscription>, head: boolean): void {
  if (out.type === 'watch') return stream(res, 'application/json', watchLines(out.events), streams);
  if (out.type === 'text' && out.more) return stream(res, TEXT, out.more.pipe(startWith(out.body)), streams);
  const isJson = out.type === 'json';
  const payload = isJson ? JSON.stringify(out.body) : out.body;
  res.writeHead(out.status, {
    'Content-Type': isJson ? 'application/json' : TEXT,
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-cache, private',
  });
  res.end(head ? undefined : payload);
}

const TEXT = 'text/plain; charset=utf-8';

/** One compact JSON event per line; a failure ends the watch with an ERROR event carrying its Status. */
function watchLines(events: Observable<WireWatchEvent>): Observable<string> {
  return events.pipe(
    map((e) => JSON.stringify(e) + '\n'),
    catchError((err: unknown) => of(JSON.stringify({ type: 'ERROR', object: toKubeStatus(err) }) + '\n')),
  );
}

/** A 200 written chunk by chunk as `chunks` emits; headers flushed at once; client disconnect seen via res 'close'. */
function stream(res: ServerResponse, contentType: string, chunks: Observable<string>, streams: Set<Subscription>): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  const sub = new Subscription();
  const end = (): void => {
    res.end();
    streams.delete(sub);
  };
  streams.add(sub);
  res.on('close', () => {
    sub.unsubscribe();
    streams.delete(sub);
  });
  sub.add(
    chunks.subscribe({
      next: (chunk) => void (chunk && res.write(chunk)),
      error: end, // only a text stream can fail here, and kube's just ends
      complete: end,
    }),
  );
}
