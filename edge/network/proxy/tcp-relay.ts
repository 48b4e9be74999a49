import { connect, type Socket } from 'node:net';
import type { Clock } from '../../../shared/clock.js';
import type { Balancer } from './balancer.js';

/** userspace kube-proxy's EndpointDialTimeouts: one dial per timeout, each to the next endpoint. */
export const DIAL_TIMEOUTS_MS = [250, 500, 1000, 2000] as const;

/** Opens a TCP connection to an endpoint (tests give one that never answers). */
export type Dial = (host: string, port: number) => Socket;

export const dialTcp: Dial = (host, port) => connect({ host, port });

/** `10.0.0.1:80` or `[fd00::1]:80` → host and port. */
export function splitHostPort(endpoint: string): { host: string; port: number } {
  const at = endpoint.lastIndexOf(':');
  return { host: endpoint.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(endpoint.slice(at + 1)) };
}

/** One dial within `timeoutMs` of the clock: the connected socket, or undefined (refused, unreachable, timed out). */
export function dialWithin(endpoint: string, timeoutMs: number, dial: Dial, clock: Clock): Promise<Socket | undefined> {
  const { host, port } = splitHostPort(endpoint);
  return new Promise((resolve) => {
    const socket = dial(host, port);
    const done = (connected: boolean): void => {
      cancel();
      socket.removeListener('connect', onConnect);
      if (!connected) socket.destroy();
      resolve(connected ? socket : undefined);
    };
    const onConnect = (): void => done(true);
    const cancel = clock.setTimer(timeoutMs, () => done(false));
    socket.once('connect', onConnect);
    socket.once('error', () => done(false));
  });
}

export interface DialOutcome {
  backend: Socket | undefined;
  /** The endpoints whose dial failed, in order. */
  failed: string[];
  /** No endpoint to try at all. */
  noEndpoints: boolean;
}

/**
 * userspace kube-proxy's tryConnect: up to four dials, with the timeouts above, each to the
 * balancer's next endpoint for this client; a failed dial resets the client's affinity.
 */
export async function dialEndpoint(balancer: Balancer, clientIP: string, dial: Dial, clock: Clock): Promise<DialOutcome> {
  const failed: string[] = [];
  for (const timeoutMs of DIAL_TIMEOUTS_MS) {
    const endpoint = balancer.next(clientIP, failed.length > 0);
    if (endpoint === undefined) return { backend: undefined, failed, noEndpoints: failed.length === 0 };
    const backend = await dialWithin(endpoint, timeoutMs, dial, clock);
    if (backend) return { backend, failed, noEndpoints: false };
    failed.push(endpoint);
  }
  return { backend: undefined, failed, noEndpoints: false };
}

/**
 * Copies both ways until either direction ends, then closes both (as kube-proxy's ProxyTCP:
 * no half-close): what was already read is still written, then each socket goes.
 */
export function relay(client: Socket, backend: Socket, onActivity: () => void): void {
  let closing = false;
  const closeBoth = (): void => {
    if (closing) return;
    closing = true;
    for (const socket of [client, backend]) {
      if (socket.destroyed || socket.writableFinished) socket.destroy();
      else socket.end(() => socket.destroy());
    }
  };
  for (const socket of [client, backend]) {
    socket.on('data', onActivity);
    socket.on('error', closeBoth);
    socket.once('end', closeBoth);
    socket.once('close', closeBoth);
  }
  client.pipe(backend);
  backend.pipe(client);
}
