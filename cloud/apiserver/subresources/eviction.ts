import { KedgeError, isKedgeError } from '../../../shared/errors.js';
import type { KubeObject, Pod, PodCondition } from '../../../shared/types.js';
import { deleteOptionsFrom, type DeleteRequestOptions } from '../rest/delete-options.js';
import { timestamp } from '../../client/object-meta.js';
import { jsonResponse, type ApiResponse } from '../request.js';
import { decodeBody } from '../http/request-body.js';
import type { ResourceCall, RestDeps } from '../rest/rest-context.js';
import { deleteOne } from '../rest/rest-delete.js';
import { isDryRun } from '../rest/dry-run.js';
import { takeDisruption } from './eviction-budget.js';

/**
 * POST pods/<name>/eviction (policy/v1 Eviction), what `kubectl drain` uses: marks the pod
 * with a DisruptionTarget condition and deletes it with the Eviction's deleteOptions
 * (preconditions included), answering 201 with a Success Status, as kube's EvictionREST does.
 *
 * The PodDisruptionBudget selecting the pod must allow it first (eviction-budget.ts): else 429,
 * which kubectl drain waits on. A dry run (deleteOptions.dryRun or the query) checks the budget
 * and deletes nothing.
 */

const ATTEMPTS = 5;

interface Eviction {
  kind?: string;
  apiVersion?: string;
  metadata?: { name?: string };
  deleteOptions?: unknown;
}

export async function evictPod(deps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const name = call.path.name!;
  const eviction = evictionOf(decodeBody(call.req));
  if (eviction.metadata?.name !== name) throw new KedgeError('BadRequest', 'name in URL does not match name in Eviction object');
  const options = optionsOf(eviction.deleteOptions);
  const dryRun = isDryRun(call.req) || dryRunOf(eviction.deleteOptions);
  const pod = (await deps.storage.get(call.def, call.path.namespace, name)) as Pod;
  await takeDisruption(deps, pod, dryRun);
  if (dryRun) return evicted();
  // A conflict is retried unless the caller pinned a resourceVersion (then it is the answer).
  const retry = !options.preconditions?.resourceVersion;
  for (let attempt = 1; ; attempt++) {
    try {
      await markAndDelete(deps, call, name, options);
      return evicted();
    } catch (err) {
      if (!retry || !isKedgeError(err, 'Conflict') || attempt >= ATTEMPTS) throw err;
    }
  }
}

function evictionOf(body: unknown): Eviction {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new KedgeError('BadRequest', 'the request body must be a JSON object');
  const eviction = body as Eviction;
  if (eviction.kind !== undefined && eviction.kind !== 'Eviction') {
    throw new KedgeError('BadRequest', `the kind in the data (${String(eviction.kind)}) does not match the expected kind (Eviction)`);
  }
  if (eviction.apiVersion !== undefined && eviction.apiVersion !== 'policy/v1' && eviction.apiVersion !== 'policy/v1beta1') {
    throw new KedgeError('BadRequest', `the API version in the data (${String(eviction.apiVersion)}) does not match the expected API version (policy/v1)`);
  }
  if (eviction.metadata !== undefined && (typeof eviction.metadata !== 'object' || eviction.metadata === null)) {
    throw new KedgeError('BadRequest', 'metadata must be an object');
  }
  return eviction;
}

const evicted = (): ApiResponse => jsonResponse(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });

function dryRunOf(raw: unknown): boolean {
  const dryRun = raw && typeof raw === 'object' ? (raw as { dryRun?: unknown }).dryRun : undefined;
  return Array.isArray(dryRun) && dryRun.includes('All');
}

function optionsOf(raw: unknown): DeleteRequestOptions {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new KedgeError('BadRequest', 'json: cannot unmarshal into Go struct field Eviction.deleteOptions of type v1.DeleteOptions');
  return deleteOptionsFrom(raw as Record<string, unknown>);
}

/**
 * addConditionAndDeletePod: the condition is written on the newest pod once the preconditions
 * hold; a resourceVersion precondition then moves to the version that write made.
 */
async function markAndDelete(deps: RestDeps, call: ResourceCall, name: string, options: DeleteRequestOptions): Promise<void> {
  const { def } = call;
  const namespace = call.path.namespace;
  const marked = await deps.storage.guaranteedUpdate(def, namespace, name, (latest) => {
    checkPreconditions(latest, options);
    return withDisruptionTarget(latest as Pod, deps.clock.now());
  });
  const pinned = options.preconditions?.resourceVersion
    ? { ...options, preconditions: { ...options.preconditions, resourceVersion: marked.metadata.resourceVersion } }
    : options;
  await deleteOne(deps, def, namespace, name, pinned);
}

/** Kube words these conflicts on the group-less resource "Pod". */
function checkPreconditions(pod: KubeObject, options: DeleteRequestOptions): void {
  const { uid, resourceVersion, name = '' } = pod.metadata;
  const wanted = options.preconditions;
  const conflict = (why: string): KedgeError =>
    new KedgeError('Conflict', `Operation cannot be fulfilled on Pod ${JSON.stringify(name)}: ${why}`, { details: { name, group: '', kind: 'Pod' } });
  if (wanted?.uid && wanted.uid !== uid) {
    throw conflict(`the UID in the precondition (${wanted.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`);
  }
  if (wanted?.resourceVersion && wanted.resourceVersion !== resourceVersion) {
    throw conflict(`the ResourceVersion in the precondition (${wanted.resourceVersion}) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`);
  }
}

/** The pod with DisruptionTarget=True (reason EvictionByEvictionAPI); the same object when it already has it. */
function withDisruptionTarget(pod: Pod, now: number): Pod {
  const conditions = pod.status?.conditions ?? [];
  const current = conditions.find((c) => c.type === 'DisruptionTarget');
  const wanted: PodCondition = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' };
  if (current && current.status === wanted.status && current.reason === wanted.reason && current.message === wanted.message) return pod;
  const lastTransitionTime = current?.status === 'True' ? current.lastTransitionTime : timestamp(now);
  const condition: PodCondition = { ...wanted, lastProbeTime: null, lastTransitionTime };
  pod.status = { ...pod.status, conditions: [...conditions.filter((c) => c !== current), condition] };
  return pod;
}
