import type { Clock } from '../../shared/clock.js';
import { demoFilePath, readDemoFile } from '../../shared/demo-file.js';
import { KedgeError, type ErrorCode } from '../../shared/errors.js';
import { jsonResponse, type ApiRequest, type ApiResponse } from '../apiserver/index.js';

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

/** The control API of the demo that wrote demo.json into the data dir it shares with this cloud. */
async function readControl(dataDir: string): Promise<{ controlUrl: string; controlToken?: string }> {
  const demo = await readDemoFile(dataDir);
  if (demo) return demo;
  throw new KedgeError(
    'Unavailable',
    `no demo runs with this cloud (${demoFilePath(dataDir)} is not there, or not a demo's): links and edge processes can be controlled only in a demo started with kedge demo`,
  );
}
