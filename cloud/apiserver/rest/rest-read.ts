import { defer, map, type Observable } from 'rxjs';
import type { KubeObject } from '../../../shared/types.js';
import { apiVersionOf } from '../kinds/registry.js';
import { jsonResponse, type ApiResponse, type WireWatchEvent } from '../request.js';
import { selectorOf, type ResourceCall, type RestDeps } from './rest-context.js';
import { buildTable, defaultPrinter, includeObjectOf, wantsTable } from './tables.js';
import { watchObjects } from './watch.js';
import { listQueryOf, revisionOf, validateWatchQuery } from './list-options.js';
import { readList } from './list-pages.js';

/** get, list and watch, answering Tables when the Accept header asks for them. */

export async function getObject(deps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const obj = await deps.storage.get(call.def, call.path.namespace, call.path.name!);
  if (!wantsTable(call.req.headers.accept)) return jsonResponse(200, obj);
  return jsonResponse(200, table(deps, call, [obj], obj.metadata.resourceVersion));
}

export async function listObjects(deps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const q = call.req.query;
  const filtered = Boolean(q.get('labelSelector') || q.get('fieldSelector'));
  const page = await readList({ store: deps.store, def: call.def, namespace: call.path.namespace, query: listQueryOf(q), matches: selectorOf(call), filtered });
  const { items, ...metadata } = page;
  if (wantsTable(call.req.headers.accept)) {
    const opts = { now: deps.clock.now(), include: includeObjectOf(q), withColumns: true, listMeta: metadata };
    return jsonResponse(200, buildTable(call.def.printer ?? defaultPrinter, items, opts));
  }
  return jsonResponse(200, { kind: `${call.def.kind}List`, apiVersion: apiVersionOf(call.def), metadata, items });
}

/**
 * A watch that names no timeout ends after kube-apiserver's --min-request-timeout (1800 s)
 * times a random factor in [1, 2), as kube's do: clients watch again, at spread-out times.
 */
export const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

export function watchObjectsResponse(deps: RestDeps, call: ResourceCall): ApiResponse {
  const q = call.req.query;
  const query = listQueryOf(q);
  validateWatchQuery(query);
  if (query.resourceVersion !== undefined) revisionOf(query.resourceVersion);
  const timeout = Number(q.get('timeoutSeconds') ?? '');
  const namedMatch = call.path.name;
  const selector = selectorOf(call);
  const events = watchObjects({
    store: deps.store,
    clock: deps.clock,
    def: call.def,
    namespace: call.path.namespace,
    matches: namedMatch === undefined ? selector : (obj) => obj.metadata.name === namedMatch && selector(obj),
    resourceVersion: query.resourceVersion,
    sendInitialEvents: query.sendInitialEvents,
    allowBookmarks: isTrue(q.get('allowWatchBookmarks')),
    timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : MIN_REQUEST_TIMEOUT_SECONDS * (1 + deps.random()),
  });
  if (!wantsTable(call.req.headers.accept)) return { type: 'watch', status: 200, events };
  return { type: 'watch', status: 200, events: defer(() => asTables(deps, call, events)) };
}

/** Each object event as a one-row Table; only the first carries the column definitions. */
function asTables(deps: RestDeps, call: ResourceCall, events: Observable<WireWatchEvent>): Observable<WireWatchEvent> {
  let columnsSent = false;
  return events.pipe(
    map((e) => {
      if (e.type === 'ERROR' || e.type === 'BOOKMARK') return e;
      const obj = e.object as KubeObject;
      const t = buildTable(call.def.printer ?? defaultPrinter, [obj], {
        now: deps.clock.now(),
        include: includeObjectOf(call.req.query),
        resourceVersion: obj.metadata.resourceVersion,
        withColumns: !columnsSent,
      });
      columnsSent = true;
      return e.initial ? { type: e.type, object: t, initial: true } : { type: e.type, object: t };
    }),
  );
}

function table(deps: RestDeps, call: ResourceCall, objects: KubeObject[], resourceVersion: string | undefined): unknown {
  const opts = { now: deps.clock.now(), include: includeObjectOf(call.req.query), withColumns: true };
  return buildTable(call.def.printer ?? defaultPrinter, objects, resourceVersion === undefined ? opts : { ...opts, resourceVersion });
}

export function isTrue(value: string | null): boolean {
  return value === 'true' || value === '1';
}
