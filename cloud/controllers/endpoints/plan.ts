import type { Endpoints, Service } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';
import { OVER_CAPACITY_ANNOTATION, truncateSubsets } from './capacity.js';
import { endpointSubsets } from './subsets.js';

/** The label kube's endpoints controller puts on the Endpoints of a headless Service. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

export type EndpointsAction =
  | { type: 'create'; endpoints: Endpoints }
  | { type: 'update'; endpoints: Endpoints }
  | { type: 'delete'; namespace: string; name: string };

export interface EndpointsKey {
  namespace: string;
  name: string;
}

/**
 * What to do about the Endpoints named like a Service. Pure.
 * - The Service is gone: its Endpoints go too.
 * - No selector (or ExternalName): its Endpoints are someone else's; leave them.
 * - Otherwise the Endpoints list the selected pods of its namespace (at most 1000 addresses,
 *   as kube's), written only when they differ.
 */
export function planEndpoints(key: EndpointsKey, service: Service | undefined, pods: readonly Pod[], current: Endpoints | undefined): EndpointsAction[] {
  if (!service) return current ? [{ type: 'delete', ...key }] : [];
  if (!managesEndpoints(service)) return [];
  const selected = pods.filter((pod) => pod.metadata.namespace === key.namespace && selects(service, pod));
  const desired = desiredEndpoints(key, service, selected, current);
  if (!current) return [{ type: 'create', endpoints: desired }];
  return sameEndpoints(current, desired) ? [] : [{ type: 'update', endpoints: desired }];
}

/** Services with a selector get their Endpoints from this controller (ExternalName ones never). */
export function managesEndpoints(service: Service): boolean {
  return service.spec?.type !== 'ExternalName' && Object.keys(service.spec?.selector ?? {}).length > 0;
}

/** Whether the Service's selector picks the pod: every key present with the same value. */
export function selects(service: Service, pod: Pod): boolean {
  const labels = pod.metadata.labels ?? {};
  return Object.entries(service.spec?.selector ?? {}).every(([k, v]) => Object.prototype.hasOwnProperty.call(labels, k) && labels[k] === v);
}

/** The Endpoints as they should be: the Service's labels (plus the headless mark) and the pods' subsets. */
function desiredEndpoints(key: EndpointsKey, service: Service, pods: readonly Pod[], current: Endpoints | undefined): Endpoints {
  const labels: Record<string, string> = { ...service.metadata.labels };
  if (service.spec.clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  const { subsets, truncated } = truncateSubsets(endpointSubsets(service, pods));
  const metadata = current ? { ...current.metadata } : { name: key.name, namespace: key.namespace };
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  else delete metadata.labels;
  const annotations: Record<string, string> = { ...metadata.annotations };
  if (truncated) annotations[OVER_CAPACITY_ANNOTATION] = 'truncated';
  else delete annotations[OVER_CAPACITY_ANNOTATION];
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  const endpoints: Endpoints = { ...(current ?? { apiVersion: 'v1', kind: 'Endpoints' }), metadata };
  if (subsets.length > 0) endpoints.subsets = subsets;
  else delete endpoints.subsets;
  return endpoints;
}

function sameEndpoints(a: Endpoints, b: Endpoints): boolean {
  const overCapacity = (e: Endpoints): string | undefined => e.metadata.annotations?.[OVER_CAPACITY_ANNOTATION];
  return canonical(a.subsets ?? []) === canonical(b.subsets ?? []) && canonical(a.metadata.labels ?? {}) === canonical(b.metadata.labels ?? {}) && overCapacity(a) === overCapacity(b);
}

/** JSON with object keys sorted: stored objects need not keep the key order they were written with. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
  );
}
