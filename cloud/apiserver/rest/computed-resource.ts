import type { KubeObject } from '../../../shared/types.js';
import { apiVersionOf, type ResourceDef } from '../kinds/registry.js';
import { jsonResponse, methodNotAllowed, type ApiResponse } from '../request.js';
import type { RestDeps } from './rest-context.js';
import { selectorOf, type ResourceCall } from './rest-context.js';
import { notFound } from './storage.js';
import { buildTable, defaultPrinter, includeObjectOf, wantsTable } from './tables.js';

/** get and list of a kind computed in memory (ResourceDef.source); every other verb is 405. */
export async function serveComputed(deps: RestDeps, call: ResourceCall & { verb: string }, source: NonNullable<ResourceDef['source']>): Promise<ApiResponse> {
  if (call.verb !== 'get' && call.verb !== 'list') throw methodNotAllowed(call.req.method, call.req.path);
  const { namespace, name } = call.path;
  const objects = await source({ ...(namespace !== undefined ? { namespace } : {}), ...(name !== undefined ? { name } : {}) });
  let items: KubeObject[];
  if (call.verb === 'get') {
    const found = objects.find((o) => o.metadata.name === name && o.metadata.namespace === namespace);
    if (!found) throw notFound(call.def, call.path.name!);
    items = [found];
  } else items = objects.filter(selectorOf(call));

  if (wantsTable(call.req.headers.accept)) {
    return jsonResponse(200, buildTable(call.def.printer ?? defaultPrinter, items, { now: deps.clock.now(), include: includeObjectOf(call.req.query), withColumns: true }));
  }
  if (call.verb === 'get') return jsonResponse(200, items[0]);
  return jsonResponse(200, { kind: `${call.def.kind}List`, apiVersion: apiVersionOf(call.def), metadata: {}, items });
}
