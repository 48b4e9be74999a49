import { KedgeError } from '../../../shared/errors.js';
import type { Pod, PodCondition } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import { jsonResponse, type ApiResponse } from '../request.js';
import { decodeBody } from '../http/request-body.js';
import type { ResourceCall, RestDeps } from '../rest/rest-context.js';
import { conflict } from '../rest/storage.js';

interface Binding {
  metadata?: { name?: string; annotations?: Record<string, string> };
  target?: { kind?: string; name?: string };
}

/**
 * POST pods/<name>/binding: assigns the pod to a node (spec.nodeName) and marks it
 * PodScheduled. A pod that is already bound, or being deleted, answers 409 Conflict.
 */
export async function bindPod(deps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const binding = decodeBody(call.req) as Binding;
  const name = call.path.name!;
  if (binding?.metadata?.name !== undefined && binding.metadata.name !== name) {
    throw new KedgeError('BadRequest', `the name of the binding (${binding.metadata.name}) does not match the pod (${name})`);
  }
  const node = binding?.target?.name;
  if (!node || (binding.target?.kind !== undefined && binding.target.kind !== 'Node' && binding.target.kind !== '')) {
    throw new KedgeError('Invalid', `Binding "${name}" is invalid: target.name: Required value`, {
      details: { name, kind: 'Binding', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'target.name' }] },
    });
  }
  await deps.storage.guaranteedUpdate(call.def, call.path.namespace, name, (obj) => {
    const pod = obj as Pod;
    if (pod.metadata.deletionTimestamp) throw conflict(call.def, name, 'pod is being deleted, cannot be assigned to a host');
    if (pod.spec.nodeName) throw conflict(call.def, name, `pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
    pod.spec.nodeName = node;
    pod.metadata.annotations = { ...pod.metadata.annotations, ...binding.metadata?.annotations };
    if (Object.keys(pod.metadata.annotations).length === 0) delete pod.metadata.annotations;
    pod.status = { ...pod.status, conditions: withScheduled(pod.status?.conditions ?? [], timestamp(deps.clock.now())) };
    return pod;
  });
  return jsonResponse(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

function withScheduled(conditions: PodCondition[], now: string): PodCondition[] {
  const scheduled: PodCondition = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now };
  const others = conditions.filter((c) => c.type !== 'PodScheduled');
  return [...others, scheduled];
}
