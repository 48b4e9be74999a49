import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import { FORWARD_HEAD_TIMEOUT_MS, forwardedHeaders, unreachable, type ForwardTarget } from './hub-forward.js';

/**
 * An upgrade request (exec, attach, port-forward; WebSocket or SPDY) sent on to `target`: its
 * original head, marked as forwarded, then the raw bytes both ways. The leader answers the
 * handshake itself (101 or a Status). `refuse` answers the client when the leader cannot be
 * reached or does not answer in time; after the leader's first byte, either side closing
 * closes both.
 */
export function forwardUpgrade(target: ForwardTarget, caPem: string, req: IncomingMessage, client: Duplex, head: Buffer, refuse: (err: Error) => void): void {
  const { hostname, port } = target.url;
  const upstream = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 443), ca: caPem, servername: isIp(hostname) ? undefined : hostname });
  let answered = false;
  const fail = (why: string): void => {
    upstream.destroy();
    if (!answered) refuse(unreachable(target, why));
    else client.destroy();
  };
  upstream.setTimeout(FORWARD_HEAD_TIMEOUT_MS, () => fail(`no answer within ${FORWARD_HEAD_TIMEOUT_MS / 1000}s`));
  upstream.once('error', (err) => fail(err.message));
  upstream.once('secureConnect', () => {
    upstream.write(headOf(req, target.url));
    if (head.length) upstream.write(head);
    client.pipe(upstream);
  });
  upstream.once('data', () => {
    answered = true;
    upstream.setTimeout(0); // long-running from here: the leader pings the client
  });
  upstream.pipe(client);
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => answered && client.destroy());
}

function headOf(req: IncomingMessage, target: URL): string {
  const headers = forwardedHeaders(req.headers, target);
  const lines = Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${name}: ${v}`));
  return `${req.method} ${req.url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

const isIp = (host: string): boolean => /^[\d.]+$/.test(host) || host.startsWith('[');
