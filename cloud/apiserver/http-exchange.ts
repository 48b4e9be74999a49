import type { IncomingMessage, ServerResponse } from 'node:http';
import { catchError, map, of, startWith, Subscription, type Observable } from 'rxjs';
import { toKubeStatus, type KubeStatus } from '../../shared/errors.js';
import { streamStarted, type ListenerTimeouts } from '../../shared/http-timeouts.js';
import { errorResponse, type ApiHandler, type ApiRequest, type ApiResponse, type RequestGate, type WireWatchEvent } from './request.js';
import { tooLarge } from './request-body.js';

/** Counts and logs one refusal (shared/counters.ts refusals()). */
export type Refuse = (reason: string, message: string, details?: Record<string, unknown>) => void;

/** What serving one request needs from its server. */
export interface Exchange {
  handler: ApiHandler;
  gate: RequestGate;
  timeouts: ListenerTimeouts;
  refuse: Refuse;
  /** Open streams, ended when the server closes. */
  streams: Set<Subscription>;
}

/** The API's refusals, by status: what /metrics counts them as. */
const refusalReasons: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 413: 'too-large', 422: 'invalid', 429: 'too-many-requests' };

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

function headOf(req: IncomingMessage): ApiRequest {
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
  if (out.type === 'watch') return stream(x, res, 'application/json', watchLines(out.events));
  if (out.type === 'text' && out.more) return stream(x, res, TEXT, out.more.pipe(startWith(out.body)));
  const isJson = out.type === 'json';
  const payload = isJson ? JSON.stringify(out.body) : out.body;
  const retryAfter = isJson ? (out.body as Partial<KubeStatus>).details?.retryAfterSeconds : undefined;
  const reason = isJson ? refusalReasons[out.status] : undefined;
  if (reason) x.refuse(reason, String((out.body as Partial<KubeStatus>).message ?? reason), seen);
  res.writeHead(out.status, {
    'Content-Type': isJson ? 'application/json' : TEXT,
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-cache, private',
    ...(retryAfter !== undefined && { 'Retry-After': String(retryAfter) }),
  });
  res.end(seen.method === 'HEAD' ? undefined : payload);
}

const TEXT = 'text/plain; charset=utf-8';

/** One compact JSON event per line; a failure ends the watch with an ERROR event carrying its Status. */
function watchLines(events: Observable<WireWatchEvent>): Observable<string> {
  return events.pipe(
    map((e) => JSON.stringify(e) + '\n'),
    catchError((err: unknown) => of(JSON.stringify({ type: 'ERROR', object: toKubeStatus(err) }) + '\n')),
  );
}

/** A 200 written chunk by chunk as `chunks` emits; headers flushed at once; the idle limit off; client disconnect seen via res 'close'. */
function stream(x: Exchange, res: ServerResponse, contentType: string, chunks: Observable<string>): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  streamStarted(res);
  const sub = new Subscription();
  const end = (): void => {
    res.end();
    x.streams.delete(sub);
  };
  x.streams.add(sub);
  res.on('close', () => {
    sub.unsubscribe();
    x.streams.delete(sub);
  });
  sub.add(
    chunks.subscribe({
      next: (chunk) => void (chunk && res.write(chunk)),
      error: end, // only a text stream can fail here, and kube's just ends
      complete: end,
    }),
  );
}
