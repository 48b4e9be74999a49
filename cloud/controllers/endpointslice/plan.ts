import {
  DISCOVERY_GROUP,
  ENDPOINTSLICE_CONTROLLER_NAME,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  type EndpointSlice,
} from '../../../shared/cluster-object-types.js';
import type { Service } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';
import { canonical, HEADLESS_LABEL, managesEndpoints, selects } from '../endpoints/plan.js';
import { addressTypeOf, endpointGroups, type EndpointGroup } from './desired.js';

/** kube-controller-manager's --max-endpoints-per-slice default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

export type SliceAction =
  | { type: 'create'; slice: EndpointSlice }
  | { type: 'update'; slice: EndpointSlice }
  | { type: 'delete'; namespace: string; name: string };

/**
 * What to do about a Service's EndpointSlices (those labelled with its name and managed by this
 * controller). Pure.
 * - The Service is gone, or has no selector: its slices go (the garbage collector would too).
 * - Otherwise its endpoints, grouped by the ports they offer, fill slices of at most 100; the
 *   slices it has are reused in name order for groups with the same ports, the rest created
 *   (generateName `<service>-`) or deleted. A Service with no endpoints keeps one empty slice
 *   (kube's placeholder), so every Service has at least one.
 */
export function planSlices(service: Service | undefined, pods: readonly Pod[], current: readonly EndpointSlice[]): SliceAction[] {
  if (!service || !managesEndpoints(service)) return current.map(deleteOf);
  const selected = pods.filter((pod) => pod.metadata.namespace === service.metadata.namespace && selects(service, pod));
  const chunks = chunked(endpointGroups(service, selected));
  const addressType = addressTypeOf(service);
  const reusable = current.filter((s) => s.addressType === addressType).sort(byName);
  const actions: SliceAction[] = current.filter((s) => s.addressType !== addressType).map(deleteOf);
  for (const chunk of chunks.length > 0 ? chunks : [{ ports: [], endpoints: [] }]) {
    const index = reusable.findIndex((s) => samePorts(s, chunk));
    const existing = index >= 0 ? reusable.splice(index, 1)[0] : undefined;
    const desired = desiredSlice(service, chunk, existing);
    if (!existing) actions.push({ type: 'create', slice: desired });
    else if (!sameSlice(existing, desired)) actions.push({ type: 'update', slice: desired });
  }
  return [...actions, ...reusable.map(deleteOf)];
}

function chunked(groups: readonly EndpointGroup[]): EndpointGroup[] {
  const out: EndpointGroup[] = [];
  for (const { ports, endpoints } of groups) {
    for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS_PER_SLICE) out.push({ ports, endpoints: endpoints.slice(i, i + MAX_ENDPOINTS_PER_SLICE) });
  }
  return out;
}

/** The labels of a Service's slices: the Service's own (kube copies them), the headless mark, its name and the manager. */
export function sliceLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = { ...service.metadata.labels };
  if (service.spec.clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  labels[SERVICE_NAME_LABEL] = service.metadata.name ?? '';
  labels[MANAGED_BY_LABEL] = ENDPOINTSLICE_CONTROLLER_NAME;
  return labels;
}

function desiredSlice(service: Service, chunk: EndpointGroup, existing: EndpointSlice | undefined): EndpointSlice {
  const { name = '', namespace = '', uid = '' } = service.metadata;
  const owner = { apiVersion: 'v1', kind: 'Service', name, uid, controller: true, blockOwnerDeletion: true };
  const metadata = existing
    ? { ...existing.metadata, labels: sliceLabels(service), ownerReferences: [owner] }
    : { generateName: `${name}-`, namespace, labels: sliceLabels(service), ownerReferences: [owner] };
  const slice: EndpointSlice = { apiVersion: `${DISCOVERY_GROUP}/v1`, kind: 'EndpointSlice', metadata, addressType: addressTypeOf(service), endpoints: chunk.endpoints };
  if (chunk.ports.length > 0) slice.ports = chunk.ports;
  return slice;
}

const samePorts = (slice: EndpointSlice, chunk: EndpointGroup): boolean => canonical(slice.ports ?? []) === canonical(chunk.ports);

function sameSlice(a: EndpointSlice, b: EndpointSlice): boolean {
  return canonical([a.endpoints ?? [], a.ports ?? [], a.metadata.labels ?? {}, a.metadata.ownerReferences ?? []]) === canonical([b.endpoints, b.ports ?? [], b.metadata.labels ?? {}, b.metadata.ownerReferences ?? []]);
}

const byName = (a: EndpointSlice, b: EndpointSlice): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);

function deleteOf(slice: EndpointSlice): SliceAction {
  return { type: 'delete', namespace: slice.metadata.namespace ?? '', name: slice.metadata.name ?? '' };
}
