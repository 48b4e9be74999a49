import { Observable } from 'rxjs';
import { fromKubeStatus, KedgeError, type KubeStatus } from '../../shared/errors.js';
import type { KubeObject, ObjectList } from '../../shared/types.js';
import type { ApiClient, ApiWatchEvent, ListOptions, PatchType, ResourceRef, WatchOptions } from '../client/client.js';
import type { ApiHandler, ApiRequest, ApiResponse } from './request.js';

const patchTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

/** The REST path of a ref: /api/v1[/namespaces/ns]/resource[/name[/sub]] (or /apis/group/v1/…). */
export function refPath(ref: ResourceRef): string {
  const base = ref.group ? `/apis/${ref.group}/v1` : '/api/v1';
  const ns = ref.namespace !== undefined ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  const name = ref.name !== undefined ? `/${encodeURIComponent(ref.name)}` : '';
  const sub = ref.subresource !== undefined && ref.name !== undefined ? `/${ref.subresource}` : '';
  return `${base}${ns}/${ref.resource}${name}${sub}`;
}

/**
 * An ApiClient for in-process components: it builds ApiRequests and calls the very same
 * `handle` the HTTP server uses, so authentication, authorization and admission all apply.
 * Without a token, `handle` must stand for a user already (ApiServer.loopbackAsNode).
 * Failures come back as KedgeErrors; watch streams as Observables of ApiWatchEvent.
 */
export function createLoopbackClient(handle: ApiHandler, token?: string): ApiClient {
  const request = async (method: string, path: string, opts: { query?: URLSearchParams; body?: unknown; contentType?: string } = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { accept: 'application/json', ...(token !== undefined && { authorization: `Bearer ${token}` }) };
    const req: ApiRequest = { method, path, query: opts.query ?? new URLSearchParams(), headers };
    if (opts.body !== undefined) {
      headers['content-type'] = opts.contentType ?? 'application/json';
      req.body = Buffer.from(JSON.stringify(opts.body));
    }
    return handle(req);
  };
  const call = async <T>(method: string, path: string, opts: { query?: URLSearchParams; body?: unknown; contentType?: string } = {}): Promise<T> => {
    const res = await request(method, path, opts);
    if (res.type !== 'json') throw new KedgeError('Internal', `unexpected ${res.type} response to ${method} ${path}`);
    if (res.status >= 400) throw fromKubeStatus(res.body as KubeStatus);
    return res.body as T;
  };
  const withNamespace = (ref: ResourceRef, body: KubeObject): ResourceRef =>
    ref.namespace === undefined && body.metadata?.namespace !== undefined ? { ...ref, namespace: body.metadata.namespace } : ref;

  return {
    get: (ref) => call('GET', refPath(ref)),
    list: <T extends KubeObject>(ref: ResourceRef, options: ListOptions = {}) => call<ObjectList<T>>('GET', refPath({ ...ref, name: undefined }), { query: selectorQuery(options) }),
    create: (ref, body, options) =>
      call('POST', refPath({ ...withNamespace(ref, body), name: ref.subresource ? ref.name : undefined }), { body, ...(options?.dryRun && { query: new URLSearchParams({ dryRun: 'All' }) }) }),
    replace: (ref, body) => call('PUT', refPath({ ...withNamespace(ref, body), name: ref.name ?? body.metadata.name }), { body }),
    patch: (ref, patch, type = 'merge') => call('PATCH', refPath(ref), { body: patch, contentType: patchTypes[type] }),
    delete: (ref, options) => call('DELETE', refPath(ref), options ? { body: { kind: 'DeleteOptions', apiVersion: 'v1', ...options } } : {}),
    watch: <T extends KubeObject>(ref: ResourceRef, options: WatchOptions = {}) => watchStream<T>(request, ref, options),
  };
}

type Requester = (method: string, path: string, opts: { query?: URLSearchParams }) => Promise<ApiResponse>;

function watchStream<T extends KubeObject>(request: Requester, ref: ResourceRef, options: WatchOptions): Observable<ApiWatchEvent<T>> {
  return new Observable<ApiWatchEvent<T>>((subscriber) => {
    const query = selectorQuery(options);
    query.set('watch', 'true');
    if (options.resourceVersion !== undefined) query.set('resourceVersion', options.resourceVersion);
    if (options.allowWatchBookmarks) query.set('allowWatchBookmarks', 'true');
    const path = refPath({ ...ref, name: undefined, subresource: undefined });
    if (ref.name !== undefined) query.set('fieldSelector', [query.get('fieldSelector'), `metadata.name=${ref.name}`].filter(Boolean).join(','));
    let inner: { unsubscribe(): void } | undefined;
    let closed = false;
    request('GET', path, { query })
      .then((res) => {
        if (closed) return;
        if (res.type !== 'watch') {
          subscriber.error(res.type === 'json' ? fromKubeStatus(res.body as KubeStatus) : new KedgeError('Internal', 'watch answered with text'));
          return;
        }
        inner = res.events.subscribe({
          next: (e) => {
            if (e.type === 'ERROR') subscriber.error(fromKubeStatus(e.object as KubeStatus));
            else subscriber.next({ type: e.type, object: e.object as T });
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        });
      })
      .catch((err: unknown) => subscriber.error(err));
    return () => {
      closed = true;
      inner?.unsubscribe();
    };
  });
}

function selectorQuery(options: ListOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.labelSelector) query.set('labelSelector', options.labelSelector);
  if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
  return query;
}
