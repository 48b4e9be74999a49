import type { ServerResponse } from 'node:http';
import type { Pod } from '../shared/types.js';
import type { EdgeProcessInfo, EdgeSummary, EdgeView } from '../shared/wire/dashboard.js';
import { ControlError, fail, failWith, reply, replyLater, unknownNode } from './control-replies.js';
import type { LinkProxy } from './link-proxy.js';

export type { EdgeProcessInfo, EdgeProcessState, EdgeView } from '../shared/wire/dashboard.js';

/** The ways to end an edge process and start it again: SIGTERM, kill -9, or as after a node reboot. */
export const EDGE_RESTARTS = ['restart', 'crash', 'reboot'] as const;
export type EdgeRestart = (typeof EDGE_RESTARTS)[number];

/** The demo's edge processes, as the control API needs them. Unknown nodes answer undefined. */
export interface EdgeControl {
  list(): EdgeProcessInfo[];
  view(node: string): Promise<EdgeView<Pod>> | undefined;
  /** Resolves once the new process is ready; rejects with a ControlError (409) while one is under way. */
  restart(node: string, how: EdgeRestart): Promise<EdgeProcessInfo> | undefined;
}

/**
 *   GET /edges                                → { items: EdgeSummary[] }
 *   GET /edges/<node>/view                    → EdgeView
 *   POST /edges/<node>/restart|crash|reboot   → EdgeProcessInfo, once the new process is ready
 */
export function routeEdges(edges: EdgeControl | undefined, links: ReadonlyMap<string, LinkProxy>, method: string, parts: string[], res: ServerResponse): void {
  const [, node, action] = parts;
  if (!edges || parts.length === 2 || parts.length > 3) return fail(res, 404, 'NotFound', `no such path /${parts.join('/')}`);
  if (node === undefined) {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /edges is not allowed; use GET`);
    const items: EdgeSummary[] = edges.list().map((e) => ({ ...e, link: links.get(e.name)?.state().state ?? 'none' }));
    return reply(res, 200, { items });
  }
  const names = (): string[] => edges.list().map((e) => e.name);
  if (action === 'view') {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /edges/${node}/view is not allowed; use GET`);
    const view = edges.view(node);
    return view ? replyLater(res, view) : failWith(res, unknownNode(names(), node));
  }
  if (!(EDGE_RESTARTS as readonly string[]).includes(action!)) return fail(res, 404, 'NotFound', `no edge action "${action}" (view, ${EDGE_RESTARTS.join(', ')})`);
  if (method !== 'POST') return fail(res, 405, 'MethodNotAllowed', `${method} /edges/${node}/${action} is not allowed; use POST`);
  const done = edges.restart(node, action as EdgeRestart);
  if (!done) return failWith(res, unknownNode(names(), node));
  replyLater(res, done);
}

export function busy(node: string): ControlError {
  return new ControlError(409, 'Conflict', `${node}'s edge process is being restarted already`);
}
