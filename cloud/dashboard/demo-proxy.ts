import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { KedgeError, type ErrorCode } from '../../shared/errors.js';
import { jsonResponse, type ApiRequest, type ApiResponse } from '../apiserver/request.js';

/** `kedge demo` writes this file into the data dir it shares with its cloud (sim/demo-file.ts). */
export const DEMO_FILE = 'demo.json';
/** An edge restart waits for the edge to be ready again; nothing else takes long. */
export const DEMO_PROXY_TIMEOUT_MS = 30_000;

export interface DemoProxyOptions {
  dataDir: string;
  clock: Clock;
}

/** Forwards one request to the running demo's control API; answers `{ error, message }` failures as Status errors. */
export type DemoProxy = (req: ApiRequest, path: string) => Promise<ApiResponse>;

const codeByStatus: Record<number, ErrorCode> = { 400: 'BadRequest', 404: 'NotFound', 405: 'MethodNotAllowed', 409: 'Conflict', 503: 'Unavailable' };

/** What the cloud cannot do itself (links, edge processes), asked of the demo that started it. */
export function demoProxy(options: DemoProxyOptions): DemoProxy {
  return async (req, path) => {
    const { controlUrl, controlToken } = await readControl(options.dataDir);
    const abort = new AbortController();
    const cancel = options.clock.setTimer(DEMO_PROXY_TIMEOUT_MS, () => abort.abort());
    const query = req.query.size > 0 ? `?${req.query}` : '';
    let res: Response;
    try {
      res = await fetch(`${controlUrl}${path}${query}`, {
        method: req.method,
        body: req.body ? new Uint8Array(req.body) : undefined,
        headers: { ...(req.body && { 'content-type': 'application/json' }), ...(controlToken !== undefined && { authorization: `Bearer ${controlToken}` }) },
        signal: abort.signal,
      });
    } catch (err) {
      cancel();
      if (abort.signal.aborted) throw new KedgeError('Timeout', `the demo's control API (${controlUrl}) did not answer within ${DEMO_PROXY_TIMEOUT_MS / 1000} s`);
      throw new KedgeError('Unavailable', `the demo's control API (${controlUrl}) did not answer: is the demo still running? (${(err as Error).message})`);
    }
    const body = (await res.json().finally(cancel).catch(() => undefined)) as { message?: unknown } | undefined;
    if (res.ok) return jsonResponse(res.status, body ?? {});
    const message = typeof body?.message === 'string' ? body.message : `the demo's control API answered ${res.status}`;
    throw new KedgeError(codeByStatus[res.status] ?? 'Internal', message);
  };
}

async function readControl(dataDir: string): Promise<{ controlUrl: string; controlToken?: string }> {
  const file = join(dataDir, DEMO_FILE);
  let parsed: { controlUrl?: unknown; controlToken?: unknown };
  try {
    parsed = JSON.parse(await readFile(file, 'utf8')) as typeof parsed;
  } catch {
    throw new KedgeError('Unavailable', `no demo runs with this cloud (no ${file}): links and edge processes can be controlled only in a demo started with kedge demo`);
  }
  if (typeof parsed.controlUrl !== 'string') throw new KedgeError('Unavailable', `${file} names no control API`);
  return { controlUrl: parsed.controlUrl, ...(typeof parsed.controlToken === 'string' && { controlToken: parsed.controlToken }) };
}
