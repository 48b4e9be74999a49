import { get } from 'node:http';
import type { Reply } from './judge-service.js';

/** Enough of a body to tell who answered. */
const MAX_BODY_BYTES = 4096;

/**
 * One GET on a connection of its own (no keep-alive: a proxy picks an endpoint per connection,
 * as kube-proxy does), within `timeoutMs` real time. Never rejects: a refused, reset or slow
 * connection is a Reply with the error's code.
 */
export function httpGet(url: string, timeoutMs: number): Promise<Reply> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false, headers: { connection: 'close' }, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < MAX_BODY_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_BODY_BYTES) }));
      res.on('error', (err) => resolve({ error: codeOf(err) }));
    });
    req.on('error', (err) => resolve({ error: codeOf(err) }));
  });
}

function codeOf(err: Error): string {
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return 'timed out';
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' ? 'refused' : code === 'ECONNRESET' ? 'reset' : (code ?? err.message);
}
