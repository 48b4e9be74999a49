import type { IncomingMessage, ServerResponse } from 'node:http';
import { KedgeError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import { carriesToken } from './local-api-token.js';
import { refuse, reply, replyLater } from './local-api-replies.js';
import type { EdgeComponent } from './network/edge-component.js';

/** What GET /components lists, and what a stop or start answers: the component's state after it. */
export interface EdgeComponentState {
  name: string;
  running: boolean;
  /** Since when it runs or is stopped (RFC 3339). */
  since: string;
}

export interface ComponentRoutesDeps {
  components: () => readonly EdgeComponent[];
  /** The bearer token a stop or start must carry (the edge's `<data>/local-api.token`); none: every one is refused. */
  token: string | undefined;
  /** Told after a stop or start: edged looks again at once (the component's kube-system pod turns ready or not). */
  onComponentChange?: () => void;
  logger: Logger;
}

const ACTIONS = ['stop', 'start'] as const;

export function stateOf(c: EdgeComponent): EdgeComponentState {
  return { name: c.name, running: c.running(), since: new Date(c.since()).toISOString() };
}

/**
 *   GET /components                     → { items: EdgeComponentState[] }
 *   GET /components/<name>              → EdgeComponentState
 *   POST /components/<name>/stop|start  → EdgeComponentState (bearer token required)
 * Refusals answer { error, message }: 401 without the token, 404 for an unknown component or
 * action, 405 for another method.
 */
export function routeComponents(deps: ComponentRoutesDeps, req: IncomingMessage, res: ServerResponse, parts: string[]): void {
  const [, name, action, ...rest] = parts;
  const method = req.method ?? 'GET';
  const read = method === 'GET' || method === 'HEAD';
  if (rest.length > 0) return refuse(res, 'NotFound', `no such path /${parts.join('/')}`);
  if (action === undefined) {
    if (!read) return refuse(res, 'MethodNotAllowed', `${method} /${parts.join('/')} is not allowed; use GET`);
    if (name === undefined) return reply(res, 200, { items: deps.components().map(stateOf) });
    return replyLater(res, deps.logger, Promise.resolve().then(() => stateOf(find(deps, name))));
  }
  if (method !== 'POST') return refuse(res, 'MethodNotAllowed', `${method} /components/${name}/${action} is not allowed; use POST`);
  if (!deps.token || !carriesToken(req.headers.authorization, deps.token)) {
    return refuse(res, 'Unauthorized', 'stopping or starting a component needs the bearer token in the local-api.token file of the edge\'s data dir');
  }
  if (!(ACTIONS as readonly string[]).includes(action)) return refuse(res, 'NotFound', `no component action "${action}" (${ACTIONS.join(', ')})`);
  replyLater(res, deps.logger, act(deps, name!, action as (typeof ACTIONS)[number]));
}

async function act(deps: ComponentRoutesDeps, name: string, action: (typeof ACTIONS)[number]): Promise<EdgeComponentState> {
  const component = find(deps, name);
  if (action === 'stop' ? component.running() : !component.running()) {
    await component[action]();
    deps.logger.info(`component ${action === 'stop' ? 'stopped' : 'started'}`, { component: name });
    deps.onComponentChange?.();
  }
  return stateOf(component);
}

function find(deps: ComponentRoutesDeps, name: string): EdgeComponent {
  const all = deps.components();
  const found = all.find((c) => c.name === name);
  if (!found) throw new KedgeError('NotFound', `no component "${name}" on this edge (its components: ${all.map((c) => c.name).join(', ') || 'none'})`);
  return found;
}
