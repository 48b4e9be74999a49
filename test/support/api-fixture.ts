import { firstValueFrom, type Observable, toArray, take } from 'rxjs';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Node, Pod } from '../../shared/types.js';
import { createApiServer, type ApiServer, type ApiServerDeps } from '../../cloud/apiserver/pipeline.js';
import type { ApiRequest, ApiResponse, WireWatchEvent } from '../../cloud/apiserver/request.js';
import { ensureRuntimeClasses, ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { GatedStore } from '../../cloud/store/gated-store.js';
import { MemoryStore, type MemoryStoreOptions } from '../../cloud/store/memory-store.js';

export const ADMIN_TOKEN = 'admin-token';
export const VIEWER_TOKEN = 'viewer-token';
export const ODD_TOKEN = 'odd-role-token';
/** Node edge-1's token (user system:node:edge-1 in system:nodes). */
export const NODE_TOKEN = 'node-edge-1-token';

export interface ApiFixture {
  api: ApiServer;
  store: MemoryStore;
  /** The gate in front of `store`: `gate.down(message)` acts out the store being down. */
  gate: GatedStore;
  clock: FakeClock;
  /** Sends a request as admin unless `token` (or null for none) says otherwise. */
  send(method: string, path: string, opts?: SendOptions): Promise<ApiResponse>;
  /** Like send, but expects JSON and returns {status, body}. */
  json<T = Record<string, unknown>>(method: string, path: string, opts?: SendOptions): Promise<{ status: number; body: T }>;
}

export interface SendOptions {
  body?: unknown;
  rawBody?: Buffer | string;
  contentType?: string;
  accept?: string;
  token?: string | null;
  query?: Record<string, string>;
}

/** An apiserver over a MemoryStore and a FakeClock, with the system namespaces created; `extra` adds collaborators (a usage source), turns write rules off or sets the store's history. */
export async function apiFixture(extra: Pick<ApiServerDeps, 'usage' | 'rules'> & { history?: MemoryStoreOptions } = {}): Promise<ApiFixture> {
  const { history, ...deps } = extra;
  const clock = new FakeClock();
  const store = new MemoryStore({ historySize: 50, clock, ...history });
  const gate = new GatedStore(store);
  const api = createApiServer({
    store: gate,
    clock,
    logger: silentLogger,
    tokens: [
      { token: ADMIN_TOKEN, user: 'admin', role: 'admin' },
      { token: VIEWER_TOKEN, user: 'viewer', role: 'viewer' },
      { token: ODD_TOKEN, user: 'odd', role: 'whatever' },
      { token: NODE_TOKEN, user: 'system:node:edge-1', role: 'node', groups: ['system:nodes'] },
    ],
    ...deps,
  });
  await ensureSystemNamespaces(api.loopback(ADMIN_TOKEN));
  await ensureRuntimeClasses(api.loopback(ADMIN_TOKEN));
  const send = (method: string, path: string, opts: SendOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { accept: opts.accept ?? 'application/json' };
    const token = opts.token === undefined ? ADMIN_TOKEN : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const req: ApiRequest = { method, path, query: new URLSearchParams(opts.query ?? {}), headers };
    const raw = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    if (raw !== undefined) {
      req.body = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    return api.handle(req);
  };
  const json = async <T>(method: string, path: string, opts?: SendOptions): Promise<{ status: number; body: T }> => {
    const res = await send(method, path, opts);
    if (res.type === 'bytes' && res.contentType === 'application/json') return { status: res.status, body: JSON.parse(res.body.toString()) as T };
    if (res.type !== 'json') throw new Error(`expected a JSON response, got ${res.type}`);
    return { status: res.status, body: res.body as T };
  };
  return { api, store, gate, clock, send, json };
}

export function pod(name: string, extra: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    ...extra,
  } as Pod;
}

export function node(name: string, ready: 'True' | 'False' | 'Unknown' | 'none' = 'True'): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'node-role.kubernetes.io/edge': '' } },
    status: {
      conditions: ready === 'none' ? [] : [{ type: 'Ready', status: ready }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.7' }],
      nodeInfo: { kubeletVersion: 'v1.32.4-kedge', osImage: 'Kedge Sim', kernelVersion: '6.1.0', containerRuntimeVersion: 'sim://1.0' },
    },
  } as unknown as Node;
}

/** The first `n` events of a watch response. */
export function takeEvents(res: ApiResponse, n: number): Promise<WireWatchEvent[]> {
  if (res.type !== 'watch') throw new Error(`expected a watch, got ${res.type}: ${JSON.stringify(res.body)}`);
  return firstValueFrom(res.events.pipe(take(n), toArray()));
}

/** Collects events into an array as they come; returns the array and a stop function. */
export function collect<T>(events: Observable<T>): { seen: T[]; stop: () => void; done: () => boolean } {
  const seen: T[] = [];
  let finished = false;
  const sub = events.subscribe({ next: (e) => seen.push(e), error: () => (finished = true), complete: () => (finished = true) });
  return { seen, stop: () => sub.unsubscribe(), done: () => finished };
}
