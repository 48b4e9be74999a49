import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import type { Logger } from '../../shared/log.js';
import type { PageHandler } from '../apiserver/index.js';
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

/** The meta element that hands a fresh session to the page (ui/live/session.ts keeps it). */
export const SESSION_META = 'kedge-session';

/**
 * GET / (the dashboard) and GET /ui/<file> (its assets), served beside the API on its port.
 * `/?token=<login token>` spends the token and hands the page a session in a meta element;
 * the page keeps it in this origin's storage and sends it as its bearer token, so no other
 * port of this host ever sees it (as it would a cookie). Without a session the page's first
 * API call answers 401, and the page says how to log in.
 */
export function dashboardPages(options: DashboardPagesOptions): PageHandler {
  const uiDir = resolve(options.uiDir);
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/') return servePage(options, uiDir, req, url.searchParams.get('token'), res);
    if (url.pathname.startsWith('/ui/')) return serveAsset(uiDir, req, url.pathname.slice('/ui/'.length), res);
    return undefined;
  };
}

async function servePage(options: DashboardPagesOptions, uiDir: string, req: IncomingMessage, token: string | null, res: ServerResponse): Promise<void> {
  // A HEAD (a link preview, a checker) must not spend the token the GET needs.
  const spends = token !== null && req.method === 'GET';
  const session = spends ? options.logins.redeem(token) : undefined;
  if (spends && !session) return send(res, req, 401, pageHeaders, loginPage('This link was used already or has expired.'));
  let html: string;
  try {
    html = await readFile(join(uiDir, 'index.html'), 'utf8');
  } catch (err) {
    options.logger.error('dashboard: cannot read index.html', { uiDir, error: (err as Error).message });
    return send(res, req, 500, pageHeaders, notBuiltPage());
  }
  send(res, req, 200, pageHeaders, session ? html.replace('</head>', `<meta name="${SESSION_META}" content="${session}">\n</head>`) : html);
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
