import { KedgeError } from '../../shared/errors.js';
import type { LogOptions } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';
import { textResponse, type ApiResponse } from './request.js';
import type { ResourceCall, RestDeps } from './rest-context.js';

/** Where container logs come from: the hub asks the edge that runs the pod. */
export interface PodLogSource {
  logs(pod: Pod, options: LogOptions): Promise<string>;
}

/** The query of GET pods/<name>/log as the edge needs it; bad values are a 400 as in kube. Pure. */
export function logOptionsOf(query: URLSearchParams): LogOptions {
  const options: LogOptions = {};
  const container = query.get('container');
  if (container) options.container = container;
  const tail = query.get('tailLines');
  if (tail !== null) {
    if (!/^\d{1,9}$/.test(tail)) throw new KedgeError('BadRequest', `tailLines: invalid value ${JSON.stringify(tail)}: must be a non-negative integer`);
    options.tailLines = Number(tail);
  }
  if (query.get('timestamps') === 'true') options.timestamps = true;
  if (query.get('previous') === 'true') options.previous = true;
  return options;
}

/**
 * GET pods/<name>/log (kubectl logs): the pod's container log, fetched from its edge over the
 * sync link, as text/plain. `follow` gives what is there now.
 */
export async function podLog(deps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const options = logOptionsOf(call.req.query);
  const pod = (await deps.storage.get(call.def, call.path.namespace, call.path.name!)) as Pod;
  const name = pod.metadata.name ?? '';
  if (!pod.spec.nodeName) throw new KedgeError('BadRequest', `pod ${name} does not have a host assigned`);
  if (!deps.podLogs) throw new KedgeError('Unavailable', 'this server cannot reach edges for logs');
  const limit = Number(call.req.query.get('limitBytes') ?? '');
  const text = await deps.podLogs.logs(pod, options);
  return textResponse(200, Number.isSafeInteger(limit) && limit > 0 ? text.slice(0, limit) : text);
}
