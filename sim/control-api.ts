import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../shared/log.js';
import type { LinkProxy, LinkState } from './link-proxy.js';

/**
 * The demo's control API on 127.0.0.1 (what `kedge link` talks to):
 *   GET /links                      → { items: LinkState[] }
 *   GET /links/<node>               → LinkState
 *   POST /links/<node>/cut|heal|reset → LinkState
 * Errors answer { error, message } with 404 (unknown node or path) or 405.
 */
export interface ControlApiOptions {
  links: ReadonlyMap<string, LinkProxy>;
  logger: Logger;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
}

export interface ControlApi {
  url: string;
  close(): Promise<void>;
}

export interface LinkList {
  items: LinkState[];
}

const actions = {
  cut: (link: LinkProxy) => link.cut(),
  heal: (link: LinkProxy) => link.heal(),
  reset: (link: LinkProxy) => link.reset(),
} as const;

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body) + '\n');
}

function fail(res: ServerResponse, status: number, error: string, message: string): void {
  reply(res, status, { error, message });
}

function route(links: ReadonlyMap<string, LinkProxy>, req: IncomingMessage, res: ServerResponse): void {
  const parts = new URL(req.url ?? '/', 'http://control').pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== 'links' || parts.length > 3) return fail(res, 404, 'NotFound', `no such path ${req.url}`);
  const method = req.method ?? 'GET';
  const [, node, action] = parts;
  if (node === undefined) {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /links is not allowed; use GET`);
    return reply(res, 200, { items: [...links.values()].map((l) => l.state()) } satisfies LinkList);
  }
  const link = links.get(node);
  if (!link) {
    const known = [...links.keys()].join(', ') || 'none';
    return fail(res, 404, 'NotFound', `no node "${node}" in this demo (its nodes: ${known})`);
  }
  if (action === undefined) {
    if (method !== 'GET') return fail(res, 405, 'MethodNotAllowed', `${method} /links/${node} is not allowed; use GET`);
    return reply(res, 200, link.state());
  }
  if (!Object.hasOwn(actions, action)) return fail(res, 404, 'NotFound', `no link action "${action}" (cut, heal or reset)`);
  if (method !== 'POST') return fail(res, 405, 'MethodNotAllowed', `${method} /links/${node}/${action} is not allowed; use POST`);
  reply(res, 200, actions[action as keyof typeof actions](link));
}

export async function startControlApi(options: ControlApiOptions): Promise<ControlApi> {
  const server = createServer((req, res) => {
    try {
      route(options.links, req, res);
    } catch (err) {
      options.logger.error(`control API: ${(err as Error).message}`);
      if (!res.headersSent) fail(res, 500, 'Internal', (err as Error).message);
    }
  });
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
