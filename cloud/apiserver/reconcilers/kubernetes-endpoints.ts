import { isIP } from 'node:net';
import { DISCOVERY_GROUP, SERVICE_NAME_LABEL, type EndpointSlice } from '../../../shared/cluster-object-types.js';
import type { EndpointSubset, Endpoints } from '../../../shared/service-types.js';
import { canonical, type EndpointsAction } from '../../controllers/endpoints/plan.js';
import type { SliceAction } from '../../controllers/endpointslice/plan.js';
import type { ApiserverEndpoint } from './apiserver-lease.js';

/** The Service every cluster has, whose Endpoints list the apiservers. */
export const KUBERNETES_SERVICE = { namespace: 'default', name: 'kubernetes' } as const;
/** Tells the EndpointSlice mirroring controller to leave these Endpoints alone (discovery.LabelSkipMirror). */
export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const PORT_NAME = 'https';

/**
 * The apiservers grouped by port, lowest first, each with its IPv4 addresses sorted and once
 * (the `kubernetes` Service is single-stack IPv4, as kube's EndpointsAdapter keeps only the
 * primary family). Several apiservers on one port is kube's case: one group. Pure.
 */
export function apiserversByPort(members: readonly ApiserverEndpoint[]): [number, string[]][] {
  const groups = new Map<number, Set<string>>();
  for (const { ip, port } of members) {
    if (isIP(ip) !== 4) continue;
    let group = groups.get(port);
    if (!group) groups.set(port, (group = new Set()));
    group.add(ip);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([port, ips]) => [port, [...ips].sort()]);
}

const subsetOf = ([port, ips]: [number, string[]]): EndpointSubset => ({ addresses: ips.map((ip) => ({ ip })), ports: [{ name: PORT_NAME, port, protocol: 'TCP' }] });

/**
 * What to write of `default/kubernetes` Endpoints, as kube-apiserver's lease endpoint
 * reconciler: one subset of the live apiservers' addresses with port `https` (one subset per
 * port when they differ), labelled only with skip-mirror; written only when the subsets or
 * labels differ. No live apiserver: nothing (kube refuses to erase every endpoint). Pure.
 */
export function planKubernetesEndpoints(members: readonly ApiserverEndpoint[], current: Endpoints | undefined): EndpointsAction[] {
  const groups = apiserversByPort(members);
  if (groups.length === 0) return [];
  const labels = { [SKIP_MIRROR_LABEL]: 'true' };
  const subsets = groups.map(subsetOf);
  if (!current) return [{ type: 'create', endpoints: { apiVersion: 'v1', kind: 'Endpoints', metadata: { ...KUBERNETES_SERVICE, labels }, subsets } }];
  const same = canonical(current.subsets ?? []) === canonical(subsets) && canonical(current.metadata.labels ?? {}) === canonical(labels);
  return same ? [] : [{ type: 'update', endpoints: { ...current, metadata: { ...current.metadata, labels }, subsets } }];
}

/** The slice of one port group: `kubernetes` for the first, `kubernetes-<port>` for the others. */
const sliceName = (index: number, port: number): string => (index === 0 ? KUBERNETES_SERVICE.name : `${KUBERNETES_SERVICE.name}-${port}`);

/**
 * What to write of the `kubernetes` Service's EndpointSlices, as kube's EndpointsAdapter: the
 * slice `kubernetes` (IPv4, labelled only with the service name, no owner, no managed-by), one
 * endpoint per address with `ready: true`, port `https`; when the apiservers listen on
 * different ports, one more slice `kubernetes-<port>` per further port. Any other slice with
 * the service-name label goes. Written only when endpoints, ports or labels differ. No live
 * apiserver: nothing. Pure.
 */
export function planKubernetesSlices(members: readonly ApiserverEndpoint[], current: readonly EndpointSlice[]): SliceAction[] {
  const groups = apiserversByPort(members);
  if (groups.length === 0) return [];
  const desired = groups.map(([port, ips], i) => desiredSlice(sliceName(i, port), port, ips));
  const byName = new Map(current.map((slice) => [slice.metadata.name ?? '', slice]));
  const actions: SliceAction[] = [];
  for (const slice of current) {
    const wanted = desired.find((d) => d.metadata.name === slice.metadata.name);
    if (!wanted || slice.addressType !== wanted.addressType) actions.push({ type: 'delete', namespace: KUBERNETES_SERVICE.namespace, name: slice.metadata.name ?? '' });
  }
  for (const slice of desired) {
    const existing = byName.get(slice.metadata.name!);
    if (!existing || existing.addressType !== slice.addressType) actions.push({ type: 'create', slice });
    else if (!sameSlice(existing, slice)) actions.push({ type: 'update', slice: { ...existing, metadata: { ...existing.metadata, labels: slice.metadata.labels }, endpoints: slice.endpoints, ports: slice.ports } });
  }
  return actions;
}

function desiredSlice(name: string, port: number, ips: readonly string[]): EndpointSlice {
  return {
    apiVersion: `${DISCOVERY_GROUP}/v1`,
    kind: 'EndpointSlice',
    metadata: { name, namespace: KUBERNETES_SERVICE.namespace, labels: { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE.name } },
    addressType: 'IPv4',
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [{ name: PORT_NAME, port, protocol: 'TCP' }],
  };
}

const sameSlice = (a: EndpointSlice, b: EndpointSlice): boolean =>
  canonical([a.endpoints ?? [], a.ports ?? [], a.metadata.labels ?? {}]) === canonical([b.endpoints, b.ports ?? [], b.metadata.labels ?? {}]);
