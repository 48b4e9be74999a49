import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import type { Logger } from '../../shared/log.js';
import { cookieValue, SESSION_COOKIE } from '../apiserver/authn.js';
import type { PageHandler } from '../apiserver/http-server.js';
import type { DashboardLogins } from './logins.js';
import { loginPage, notBuiltPage } from './login-page.js';

export interface DashboardPagesOptions {
  logins: DashboardLogins;
  /** The built UI (dist/ui): index.html, style.css and the compiled modules. */
  uiDir: string;
  logger: Logger;
}

const assetTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Everything comes from this origin; nothing may frame the page. */
const pageHeaders = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * GET / (the dashboard, or a 401 page without a session) and GET /ui/<file> (its assets),
 * served beside the API on its port. `/?token=<login token>` spends the token for a session
 * cookie; the page then drops the token from its address.
 */
export function dashboardPages(options: DashboardPagesOptions): PageHandler {
  const uiDir = resolve(options.uiDir);
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/') return servePage(options, uiDir, req, url, res);
    if (url.pathname.startsWith('/ui/')) return serveAsset(uiDir, req, url.pathname.slice('/ui/'.length), res);
    return undefined;
  };
}

async function servePage(options: DashboardPagesOptions, uiDir: string, req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = { ...pageHeaders };
  const sessionId = cookieValue(req.headers.cookie, SESSION_COOKIE);
  if (sessionId === undefined || !options.logins.sessionUser(sessionId)) {
    const token = url.searchParams.get('token');
    const fresh = token ? options.logins.redeem(token) : undefined;
    if (!fresh) return send(res, req, 401, headers, loginPage(token ? 'This link was used already or has expired.' : undefined));
    headers['Set-Cookie'] = `${SESSION_COOKIE}=${fresh}; HttpOnly; SameSite=Strict; Path=/`;
  }
  let html: string;
  try {
    html = await readFile(join(uiDir, 'index.html'), 'utf8');
  } catch (err) {
    options.logger.error('dashboard: cannot read index.html', { uiDir, error: (err as Error).message });
    return send(res, req, 500, headers, notBuiltPage());
  }
  send(res, req, 200, headers, html);
}

/** A file of the built UI, revalidated on every load (ETag), so a rebuild shows at once. */
async function serveAsset(uiDir: string, req: IncomingMessage, name: string, res: ServerResponse): Promise<void> {
  const type = assetTypes[extname(name)];
  const file = resolve(uiDir, name);
  const info = type && /^[\w.-]+(\/[\w.-]+)*$/.test(name) && file.startsWith(uiDir + sep) ? await stat(file).catch(() => undefined) : undefined;
  if (!type || !info?.isFile()) return send(res, req, 404, { 'Content-Type': 'text/plain; charset=utf-8' }, `no such file /ui/${name}\n`);
  const etag = `W/"${info.size}-${Math.floor(info.mtimeMs)}"`;
  const headers = { 'Content-Type': type, 'Cache-Control': 'no-cache', ETag: etag, 'X-Content-Type-Options': 'nosniff' };
  if (req.headers['if-none-match'] === etag) return send(res, req, 304, headers, '');
  send(res, req, 200, headers, await readFile(file));
}

function send(res: ServerResponse, req: IncomingMessage, status: number, headers: Record<string, string>, body: string | Buffer): void {
  res.writeHead(status, status === 304 ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(req.method === 'HEAD' || status === 304 ? undefined : body);
}
