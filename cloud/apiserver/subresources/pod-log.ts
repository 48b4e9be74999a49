import { KedgeError } from '../../../shared/errors.js';
import type { LogChunk, LogOptions } from '../../../shared/protocol/envelope.js';
import type { Pod } from '../../../shared/types.js';
import { cutToBytes, followLog } from './pod-log-follow.js';
import { podLogQueryOf } from './pod-log-options.js';
import { forwardPlain } from '../forward/hub-forward.js';
import { textResponse, type ApiResponse } from '../request.js';
import type { ResourceCall, RestDeps } from '../rest/rest-context.js';

/** Where container logs come from: the hub asks the edge that runs the pod. */
export interface PodLogSource {
  logs(pod: Pod, options: LogOptions): Promise<LogChunk>;
}

/**
 * GET pods/<name>/log (kubectl logs): the pod's container log, fetched from its edge over the
 * sync link, as text/plain. With `follow` the response stays open and carries what the
 * container writes next, until that run exits [SYNC-16].
 */
export async function podLog(deps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const { namespace } = call.path;
  const name = call.path.name!;
  const query = podLogQueryOf(call.req.query, name);
  const pod = (await deps.storage.get(call.def, namespace, name)) as Pod;
  if (!pod.spec.nodeName) throw new KedgeError('BadRequest', `pod ${name} does not have a host assigned`);
  const leader = await deps.hubForward?.target(call.req, pod);
  if (leader) return forwardPlain(leader, call.req, deps.hubForward!.caPem);
  const source = deps.podLogs;
  if (!source) throw new KedgeError('Unavailable', 'this server cannot reach edges for logs');
  const first = await source.logs(pod, query.options);
  if (!query.follow) return textResponse(200, cutToBytes(first.text, query.limitBytes ?? Infinity));
  const timestamps = query.options.timestamps === true;
  const more = followLog(first, {
    clock: deps.clock,
    next: (cursor) => source.logs(pod, { timestamps, cursor }),
    podExists: async () => (await deps.storage.find(call.def, namespace, name))?.metadata.uid === pod.metadata.uid,
  }, query.limitBytes);
  return { type: 'text', status: 200, body: '', more };
}
