import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { Observable } from 'rxjs';
import { KedgeError } from '../../../shared/errors.js';
import type { Pod } from '../../../shared/types.js';
import type { ApiRequest, ApiResponse } from '../request.js';

/** Marks a request one cloud forwarded to another; a cloud that cannot serve it either answers 503 instead of forwarding again. */
export const FORWARDED_HEADER = 'x-kedge-forwarded';

/** How long the leader has to answer a forwarded request's head (kube-apiserver's default --request-timeout). */
export const FORWARD_HEAD_TIMEOUT_MS = 60_000;

/**
 * Where a standby cloud sends what only the hub's leader can serve (pods' logs, exec, attach,
 * port-forward), as any kube-apiserver reaches any kubelet.
 */
export interface HubForward {
  /**
   * The leading cloud's API for a request about `pod` (none: the edges' usage); undefined when this cloud serves it
   * itself. Rejects with Unavailable (why this cloud's hub is standby, and why it cannot
   * forward) when the leader is unknown, or when `req` was forwarded already.
   */
  target(req: ApiRequest, pod?: Pod): Promise<ForwardTarget | undefined>;
  /** The cluster CA, which signs every cloud's serving certificate. */
  readonly caPem: string;
}

/** The leader's API, and why this cloud does not serve the request itself (its hub's standby message). */
export interface ForwardTarget {
  url: URL;
  standby: string;
}

/** The headers a forwarded request carries: the client's own (its Authorization too), marked as forwarded, for the leader's host. */
export function forwardedHeaders(headers: Record<string, string | string[] | undefined>, target: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && name !== 'host') out[name] = value;
  return { ...out, host: target.host, [FORWARDED_HEADER]: '1' };
}

/** Why a forward failed, as the 503 the client sees. */
export const unreachable = (target: ForwardTarget, why: string): KedgeError =>
  new KedgeError('Unavailable', `${target.standby}: its API at ${target.url.origin} does not answer: ${why}`);

/** A plain request (pods/log) sent on to `target`; its answer comes back as it is (followed logs keep streaming). */
export function forwardPlain(target: ForwardTarget, req: ApiRequest, caPem: string): Promise<ApiResponse> {
  const url = new URL(`${req.path}?${req.query.toString()}`, target.url);
  return new Promise((resolve, reject) => {
    const out = httpsRequest(url, { method: req.method, headers: forwardedHeaders(req.headers, target.url), ca: caPem, timeout: FORWARD_HEAD_TIMEOUT_MS }, (res) => {
      out.setTimeout(0);
      resolve(answerOf(res));
    });
    out.once('timeout', () => out.destroy(new Error(`no answer within ${FORWARD_HEAD_TIMEOUT_MS / 1000}s`)));
    out.once('error', (err) => reject(unreachable(target, err.message)));
    out.end(req.body);
  });
}

async function answerOf(res: IncomingMessage): Promise<ApiResponse> {
  const status = res.statusCode ?? 502;
  if (!(res.headers['content-type'] ?? '').startsWith('text/plain') || status !== 200) {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      return { type: 'json', status, body: JSON.parse(text) as unknown };
    } catch {
      return { type: 'text', status, body: text };
    }
  }
  const more = new Observable<string>((sub) => {
    const decoder = new StringDecoder('utf8');
    res.on('data', (chunk: Buffer) => sub.next(decoder.write(chunk)));
    res.once('end', () => {
      const rest = decoder.end();
      if (rest) sub.next(rest);
      sub.complete();
    });
    res.once('error', (err) => sub.error(err));
    return () => res.destroy();
  });
  return { type: 'text', status, body: '', more };
}
