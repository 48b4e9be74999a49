import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createInterface } from 'node:readline';
import { Observable } from 'rxjs';
import { KedgeError } from '../../../shared/errors.js';
import { isLoopbackHost } from '../../network.js';
import type { ApiClient } from '../../client/client.js';
import { createLoopbackClient } from '../loopback-client.js';
import type { ApiHandler, ApiRequest, ApiResponse, WireWatchEvent } from '../request.js';

/**
 * An ApiHandler that forwards each request to a remote apiserver. With `ca`, an https:// server
 * is spoken to over TLS verified against it; without, over plain HTTP whatever baseUrl says
 * (a kedge apiserver on loopback answers both on one port), but never to an https:// server
 * beyond loopback. With it, the same client code that runs in-process drives a cloud in
 * another process: fleets, benchmarks, tools.
 */
export function remoteHandler(baseUrl: string, agent?: Agent, ca?: string): ApiHandler {
  const base = new URL(baseUrl);
  const secure = ca !== undefined && base.protocol === 'https:';
  if (base.protocol === 'https:' && !secure && !isLoopbackHost(base.hostname.replace(/^\[|\]$/g, ''))) {
    throw new KedgeError('Invalid', `${baseUrl} is https:// but no CA to check it against was given (a kubeconfig's certificate-authority-data): no token goes to it over plain HTTP`);
  }
  const request = secure ? httpsRequest : httpRequest;
  const pool = agent ?? (secure ? new HttpsAgent({ keepAlive: true, maxSockets: 256, ca }) : new Agent({ keepAlive: true, maxSockets: 256 }));
  return (req) =>
    new Promise<ApiResponse>((resolve, reject) => {
      const query = req.query.toString();
      const out = request(
        { host: base.hostname, port: base.port, method: req.method, path: req.path + (query ? `?${query}` : ''), headers: headersOf(req), agent: pool, ...(secure ? { ca } : {}) },
        (res) => resolve(isWatch(req) && res.statusCode === 200 ? watchResponse(res) : bodyResponse(res)),
      );
      out.on('error', (err) => reject(new KedgeError('Unavailable', `apiserver ${baseUrl}: ${err.message}`, { cause: err })));
      out.end(req.body);
    });
}

/** An ApiClient for a cloud reached over HTTP (see remoteHandler). */
export function createRemoteClient(baseUrl: string, token: string, ca?: string): ApiClient {
  return createLoopbackClient(remoteHandler(baseUrl, undefined, ca), token);
}

function headersOf(req: ApiRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
  if (req.body) headers['content-length'] = String(req.body.length);
  return headers;
}

const isWatch = (req: ApiRequest): boolean => req.query.get('watch') === 'true' || req.query.get('watch') === '1';

function bodyResponse(res: IncomingMessage): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const status = res.statusCode ?? 500;
      if (!(res.headers['content-type'] ?? '').includes('json')) return resolve({ type: 'text', status, body: text });
      try {
        resolve({ type: 'json', status, body: JSON.parse(text) });
      } catch (err) {
        reject(new KedgeError('Internal', `apiserver answered malformed JSON: ${(err as Error).message}`));
      }
    });
  });
}

function watchResponse(res: IncomingMessage): ApiResponse {
  const events = new Observable<WireWatchEvent>((subscriber) => {
    const lines = createInterface({ input: res });
    lines.on('line', (line) => {
      if (!line) return;
      try {
        subscriber.next(JSON.parse(line) as WireWatchEvent);
      } catch (err) {
        subscriber.error(new KedgeError('Internal', `apiserver sent a malformed watch event: ${(err as Error).message}`));
      }
    });
    lines.on('close', () => subscriber.complete());
    // An aborted response (the server went away mid-watch) errors the input, which readline re-emits.
    lines.on('error', (err) => subscriber.error(err));
    res.on('error', (err) => subscriber.error(err));
    return () => {
      lines.close();
      res.destroy();
    };
  });
  return { type: 'watch', status: 200, events };
}
