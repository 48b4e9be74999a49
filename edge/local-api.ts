import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { enforceTimeouts, KUBE_LISTENER_TIMEOUTS, timeoutOptions, type ListenerTimeouts } from '../shared/http-timeouts.js';
import type { Logger } from '../shared/log.js';
import type { Clock } from '../shared/clock.js';
import type { ObjectList, Pod } from '../shared/types.js';
import type { ConnectionReport } from '../shared/wire/dashboard.js';
import type { LocalCache } from './metamanager/local-cache.js';
import { routeCri } from './cri/cri-routes.js';
import { routeComponents } from './local-api-components.js';
import { refuse, reply } from './local-api-replies.js';
import type { EdgeComponent } from './network/edge-component.js';
import type { Runtime } from './runtime/runtime.js';

/** What GET /connection answers. */
export type { ConnectionReport };

export interface LocalApiDeps {
  port: number;
  cache: LocalCache;
  connectivity: () => { connected: boolean; since: number };
  /** When the broker was last heard from (ms since the epoch); undefined before its first packet. */
  lastHeardFromBroker: () => number | undefined;
  /** The MQTT keepalive, in seconds: a silent broker is given up on after 1.5 times this. */
  keepaliveSeconds: number;
  clock: Clock;
  /** Resolves once the pods' statuses are current (edged's first sync); /pods waits for it. */
  ready?: () => Promise<void>;
  logger: Logger;
  /** Default KUBE_LISTENER_TIMEOUTS. */
  timeouts?: ListenerTimeouts;
  /** GET /metrics: counters in Prometheus' text format (kube-proxy's data plane); none: 404. */
  metrics?: () => string;
  /** The bearer token a change (POST) must carry; none: every change is refused. */
  token?: string;
  /** The parts a user may stop and start; enables /components. */
  components?: () => readonly EdgeComponent[];
  /** Told after a component was stopped or started. */
  onComponentChange?: () => void;
  /** The node's runtime; enables the CRI reads under /cri. */
  runtime?: Runtime;
  /** Connections held at once (default 64): one more is closed at once, so open reads cannot pile up. */
  maxConnections?: number;
}

export interface LocalApi {
  url: string;
  close(): Promise<void>;
}

function podList(cache: LocalCache): ObjectList<Pod> {
  const items = cache
    .objects()
    .filter((o) => o.kind === 'Pod')
    .map((o) => ({ ...o.object, apiVersion: 'v1', kind: 'Pod' }));
  return { apiVersion: 'v1', kind: 'PodList', metadata: {}, items };
}

function connection(deps: LocalApiDeps): ConnectionReport {
  const c = deps.connectivity();
  const heard = deps.lastHeardFromBroker();
  return {
    connected: c.connected,
    offlineSince: c.connected ? null : new Date(c.since).toISOString(),
    queued: deps.cache.outbox().length,
    lastHeardFromBroker: heard === undefined ? null : new Date(heard).toISOString(),
    silentForSeconds: heard === undefined ? null : Math.round((deps.clock.now() - heard) / 100) / 10,
    keepaliveSeconds: deps.keepaliveSeconds,
  };
}

function route(deps: LocalApiDeps, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://local');
  const path = url.pathname;
  const parts = pathParts(path);
  if (!parts) return refuse(res, 'BadRequest', `malformed path ${path}`);
  const { components, runtime } = deps;
  if (parts[0] === 'components' && components) return routeComponents({ ...deps, components, token: deps.token }, req, res, parts);
  if (parts[0] === 'cri' && runtime) return routeCri({ ...deps, runtime }, req, res, parts, url.searchParams);
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 'MethodNotAllowed', `${req.method} ${path} is not allowed: the local API is read-only but for POST /components/<name>/stop|start`);
  if (path === '/healthz') return reply(res, 200, 'ok');
  if (path === '/pods') {
    const ready = deps.ready?.() ?? Promise.resolve();
    void ready.then(() => reply(res, 200, podList(deps.cache))).catch((err: Error) => fail(deps, res, err));
    return;
  }
  if (path === '/connection') return reply(res, 200, connection(deps));
  if (path === '/metrics' && deps.metrics) return reply(res, 200, deps.metrics());
  reply(res, 404, { message: `no such path ${path}` });
}

/** The path's segments, decoded; undefined when one is not valid percent-encoding. */
function pathParts(path: string): string[] | undefined {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

function fail(deps: LocalApiDeps, res: ServerResponse, err: Error): void {
  deps.logger.error('local API request failed', { error: err.message });
  if (!res.headersSent) reply(res, 500, { message: 'internal error' });
}

/**
 * The edge's HTTP endpoint on 127.0.0.1. Everything comes from the local cache, the runtime,
 * the edge's components and the hub's connectivity, so it answers while the cloud is
 * unreachable. Reads are open (as the kubelet's read-only port); the one change it takes,
 * stopping or starting a component, wants the token in the edge's data dir.
 */
export async function startLocalApi(deps: LocalApiDeps): Promise<LocalApi> {
  const timeouts = deps.timeouts ?? KUBE_LISTENER_TIMEOUTS;
  const server = createServer(timeoutOptions(timeouts), (req, res) => {
    try {
      route(deps, req, res);
    } catch (err) {
      fail(deps, res, err as Error);
    }
  });
  enforceTimeouts(server, timeouts);
  server.maxConnections = deps.maxConnections ?? 64;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
