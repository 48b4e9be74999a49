import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerOf } from '../cloud/apiserver/auth/authn.js';
import { enforceTimeouts, KUBE_LISTENER_TIMEOUTS, timeoutOptions, type ListenerTimeouts } from '../shared/http-timeouts.js';
import { sameSecret } from '../shared/digest.js';
import type { Logger } from '../shared/log.js';
import type { ObjectList, Pod } from '../shared/types.js';
import { ControlError, fail, failWith, reply, replyLater, unknownNode } from './control-replies.js';
import { routeEdges, type EdgeControl } from './edge-routes.js';
import type { EtcdControl } from './demo-etcd.js';
import { routeEtcd } from './etcd-routes.js';
import type { LinkProxy, LinkState } from './link-proxy.js';
import { SHAPE_ACTIONS, shapeLink, type ShapeAction } from './link-shape-routes.js';

/**
 * The control API on 127.0.0.1 of a demo (what `kedge link` talks to) or a hollow fleet:
 *   GET /links                        → { items: LinkState[] }
 *   GET /links/<node>                 → LinkState
 *   POST /links/<node>/cut|heal|reset → LinkState
 *   POST /links/<node>/shape?…, /flap?… → LinkState (link-shape-routes.ts; 400 for a bad parameter)
 *   POST /links/cut-all|heal-all|reset-all → LinkTotals (after acting on every link)
 *   GET /links/totals                 → LinkTotals (sums, without listing every link)
 *   GET /nodes/<node>/pods            → PodList of what that edge runs (when `pods` is given)
 *   GET /edges, GET /edges/<node>/view, POST /edges/<node>/restart|crash|reboot (when `edges`
 *   is given; see edge-routes.ts)
 *   GET /etcd, POST /etcd/<member>/stop|start|kill (a demo on etcd; see etcd-routes.ts)
 *   GET /debug/pod-startups           → the edges' pod startup marks (a fleet with --trace-pod-startup)
 * Errors answer { error, message } with 401 (no or a wrong token, when it has one), 404
 * (unknown node or path), 405 or 409 (busy).
 */
export interface ControlApiOptions {
  links: ReadonlyMap<string, LinkProxy>;
  logger: Logger;
  /** What an edge runs, or undefined for a node it does not know; enables /nodes/<node>/pods. */
  pods?: (node: string) => Promise<Pod[]> | undefined;
  /** The demo's edge processes; enables /edges. */
  edges?: EdgeControl;
  /** The demo's etcd members (kedge demo --etcd N); enables POST /etcd/<member>/…. */
  etcd?: EtcdControl;
  /** The edges' pod startup trace; enables GET /debug/pod-startups. */
  podStartups?: () => unknown;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default KUBE_LISTENER_TIMEOUTS (an edge restart answers within them: see DEMO_PROXY_TIMEOUT_MS). */
  timeouts?: ListenerTimeouts;
  /** When set, every request must carry it as its bearer token (401 otherwise): a demo's is in its demo.json, a fleet's in its fleet.json, both 0600. */
  token?: string;
}

export interface ControlApi {
  url: string;
  close(): Promise<void>;
}

export interface LinkList {
  items: LinkState[];
}

/** Sums over a set of links: `cut` counts the links that are cut. */
export interface LinkTotals {
  links: number;
  connections: number;
  bytesUp: number;
  bytesDown: number;
  cut: number;
}

export function linkTotals(links: ReadonlyMap<string, LinkProxy>): LinkTotals {
  const totals: LinkTotals = { links: 0, connections: 0, bytesUp: 0, bytesDown: 0, cut: 0 };
  for (const link of links.values()) {
    const s = link.state();
    totals.links++;
    totals.connections += s.connections;
    totals.bytesUp += s.bytesUp;
    totals.bytesDown += s.bytesDown;
    if (s.state === 'cut') totals.cut++;
  }
  return totals;
}

const actions = {
  cut: (link: LinkProxy) => link.cut(),
  heal: (link: LinkProxy) => link.heal(),
  reset: (link: LinkProxy) => link.reset(),
} as const;

const bulk: Record<string, keyof typeof actions> = { 'cut-all': 'cut', 'heal-all': 'heal', 'reset-all': 'reset' };

/** Bulk paths (/links/totals, POST /links/<action>-all); false when the path is not one. */
function routeBulk(links: ReadonlyMap<string, LinkProxy>, method: string, name: string, res: ServerResponse): boolean {
  if (name === 'totals' && method === 'GET') {
    reply(res, 200, linkTotals(links));
    return true;
  }
  const action = Object.hasOwn(bulk, name) ? bulk[name] : undefined;
  if (action === undefined || method !== 'POST') return false;
  for (const link of links.values()) actions[action](link);
  reply(res, 200, linkTotals(links));
  return true;
}

function routePods(options: ControlApiOptions, method: string, parts: string[], res: ServerResponse): void {
  const [, node, what] = parts;
  if (!options.pods || node === undefined || what !== 'pods' || parts.length !== 3) return fail(res, 404, 'NotFound', `no such path /${parts.join('/')}`);
  if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /nodes/${node}/pods is not allowed; use GET`);
  const pods = options.pods(node);
  if (!pods) return fail(res, 404, 'NotFound', `no node "${node}" here`);
  replyLater(res, pods.then((items) => ({ apiVersion: 'v1', kind: 'PodList', metadata: {}, items }) satisfies ObjectList<Pod>));
}

function route(options: ControlApiOptions, req: IncomingMessage, res: ServerResponse): void {
  const { links } = options;
  const url = new URL(req.url ?? '/', 'http://control');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const method = req.method ?? 'GET';
  if (parts[0] === 'nodes') return routePods(options, method, parts, res);
  if (parts[0] === 'etcd') return routeEtcd(options.etcd, method, parts, res);
  if (parts[0] === 'edges') return routeEdges(options.edges, links, method, parts, res);
  if (parts.join('/') === 'debug/pod-startups' && options.podStartups) {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /debug/pod-startups is not allowed; use GET`);
    return reply(res, 200, options.podStartups());
  }
  if (parts[0] !== 'links' || parts.length > 3) return fail(res, 404, 'NotFound', `no such path ${req.url}`);
  const [, node, action] = parts;
  if (node !== undefined && action === undefined && routeBulk(links, method, node, res)) return;
  if (node === undefined) {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /links is not allowed; use GET`);
    return reply(res, 200, { items: [...links.values()].map((l) => l.state()) } satisfies LinkList);
  }
  const link = links.get(node);
  if (!link) return failWith(res, unknownNode([...links.keys()], node));
  if (action === undefined) {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /links/${node} is not allowed; use GET`);
    return reply(res, 200, link.state());
  }
  const shaping = (SHAPE_ACTIONS as readonly string[]).includes(action);
  if (!shaping && !Object.hasOwn(actions, action)) return fail(res, 404, 'NotFound', `no link action "${action}" (cut, heal, reset, shape or flap)`);
  if (method !== 'POST') return fail(res, 405, 'MethodNotAllowed', `${method} /links/${node}/${action} is not allowed; use POST`);
  if (!shaping) return reply(res, 200, actions[action as keyof typeof actions](link));
  try {
    reply(res, 200, shapeLink(link, action as ShapeAction, url.searchParams));
  } catch (err) {
    if (!(err instanceof ControlError)) throw err;
    failWith(res, err);
  }
}

export async function startControlApi(options: ControlApiOptions): Promise<ControlApi> {
  const timeouts = options.timeouts ?? KUBE_LISTENER_TIMEOUTS;
  const server = createServer(timeoutOptions(timeouts), (req, res) => {
    try {
      if (options.token !== undefined && !sameSecret(bearerOf(req.headers.authorization) ?? '', options.token)) {
        return fail(res, 401, 'Unauthorized', "the control API needs its token as bearer token: controlToken in the data dir's demo.json (or fleet.json)");
      }
      route(options, req, res);
    } catch (err) {
      options.logger.error(`control API: ${(err as Error).message}`);
      if (!res.headersSent) fail(res, 500, 'Internal', (err as Error).message);
    }
  });
  enforceTimeouts(server, timeouts);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
