import type { IncomingMessage, ServerResponse } from 'node:http';
import { catchError, map, of, startWith, type Observable, type Subscription } from 'rxjs';
import { toKubeStatus, type KubeStatus } from '../../../shared/errors.js';
import { streamEnded, streamStarted, type ListenerTimeouts } from '../../../shared/http-timeouts.js';
import { errorResponse, warningHeader, type ApiHandler, type ApiRequest, type ApiResponse, type RequestGate, type WireWatchEvent } from '../request.js';
import { tooLarge } from './request-body.js';
import { listPieces, streamedMember, writePieces } from './list-encoding.js';
import { pump, type Piece, type StreamLimits } from './response-stream.js';

/** Counts and logs one refusal (shared/counters.ts refusals()). */
export type Refuse = (reason: string, message: string, details?: Record<string, unknown>) => void;

/** What serving one request needs from its server. */
export interface Exchange {
  handler: ApiHandler;
  gate: RequestGate;
  timeouts: ListenerTimeouts;
  streamLimits: StreamLimits;
  refuse: Refuse;
  /** Open streams, ended when the server closes. */
  streams: Set<Subscription>;
}

/** The API's refusals, by status: what /metrics counts them as. */
export const refusalReasons: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 413: 'too-large', 422: 'invalid', 429: 'too-many-requests' };

/** Gate (from the head alone), body (no more than the gate allows), handler, answer. */
export async function serveOne(x: Exchange, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const apiReq = headOf(req);
  const seen = { method: apiReq.method, path: apiReq.path, peer: req.socket.remoteAddress };
  try {
    const admission = await x.gate(apiReq);
    if ('refusal' in admission) {
      req.resume(); // unread, dropped as it comes
      return write(x, res, admission.refusal, seen);
    }
    res.once('close', admission.done);
    if (/100-continue/i.test(req.headers.expect ?? '')) res.writeContinue();
    const body = await readBody(req, admission.maxBodyBytes);
    if (body.length > 0) apiReq.body = body;
    write(x, res, await x.handler(apiReq), seen);
  } catch (err) {
    if (!res.headersSent) write(x, res, errorResponse(err), seen);
    else res.destroy();
  }
}

export function headOf(req: IncomingMessage): ApiRequest {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers };
}

/** Reads the request body, refusing more than `limit` bytes (413) without buffering them. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        chunks.length = 0;
        req.resume();
        reject(tooLarge(limit));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

type Seen = Record<string, string | undefined>;

function write(x: Exchange, res: ServerResponse, out: ApiResponse, seen: Seen): void {
  if (out.type === 'watch') return stream(x, res, 'application/json', watchPieces(out.events), x.streamLimits.watchEvents, 'slow-watcher', seen);
  if (out.type === 'text' && out.more) return stream(x, res, TEXT, textPieces(out.more.pipe(startWith(out.body))), x.streamLimits.textBytes, 'slow-reader', seen);
  if (out.type === 'json') {
    const member = streamedMember(out.body);
    if (member) return writeList(res, out, member, seen.method === 'HEAD');
  }
  const isJson = out.type === 'json';
  const payload = isJson ? JSON.stringify(out.body) : out.body;
  const contentType = isJson ? 'application/json' : out.type === 'bytes' ? out.contentType : TEXT;
  const retryAfter = isJson ? (out.body as Partial<KubeStatus>).details?.retryAfterSeconds : undefined;
  const reason = isJson ? refusalReasons[out.status] : undefined;
  if (reason) x.refuse(reason, String((out.body as Partial<KubeStatus>).message ?? reason), seen);
  res.writeHead(out.status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-cache, private',
    ...(retryAfter !== undefined && { 'Retry-After': String(retryAfter) }),
    ...(out.warnings?.length && { Warning: out.warnings.map(warningHeader) }),
  });
  res.end(seen.method === 'HEAD' ? undefined : payload);
}

const TEXT = 'text/plain; charset=utf-8';

/** A long list, chunked: encoded a piece at a time as the client reads it, never whole. */
function writeList(res: ServerResponse, out: Extract<ApiResponse, { type: 'json' }>, member: string, head: boolean): void {
  res.writeHead(out.status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    ...(out.warnings?.length && { Warning: out.warnings.map(warningHeader) }),
  });
  if (head) res.end();
  else writePieces(res, listPieces(out.body as Record<string, unknown>, member));
}

/** One compact JSON event per line, encoded as it is sent; a failure ends the watch with an ERROR event carrying its Status. */
function watchPieces(events: Observable<WireWatchEvent>): Observable<Piece> {
  return events.pipe(
    catchError((err: unknown) => of<WireWatchEvent>({ type: 'ERROR', object: toKubeStatus(err) })),
    map((e) => ({ encode: () => JSON.stringify({ type: e.type, object: e.object }) + '\n', weight: e.initial ? 0 : 1 })),
  );
}

/** The text so far, then what follows it, which counts by its size. */
function textPieces(chunks: Observable<string>): Observable<Piece> {
  return chunks.pipe(map((chunk, i) => ({ encode: () => chunk, weight: i === 0 ? 0 : Buffer.byteLength(chunk) })));
}

/** A 200 written piece by piece; headers flushed at once; the idle limit off, the backlog bounded. */
function stream(x: Exchange, res: ServerResponse, contentType: string, pieces: Observable<Piece>, limit: number, slow: string, seen: Seen): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  streamStarted(res);
  const sub = pump(res, pieces, limit, (backlog) => {
    x.streams.delete(sub);
    streamEnded(res, x.timeouts);
    x.refuse(slow, `closed a stream whose client left ${backlog} ${slow === 'slow-watcher' ? 'events' : 'bytes'} unread`, seen);
  });
  x.streams.add(sub);
  res.on('close', () => {
    sub.unsubscribe();
    x.streams.delete(sub);
  });
}
