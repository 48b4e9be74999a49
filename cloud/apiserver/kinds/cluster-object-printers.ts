import type { EndpointSlice, PodDisruptionBudget } from '../../../shared/cluster-object-types.js';
import { age } from '../rest/tables.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';

/** kube's printers for EndpointSlices and PodDisruptionBudgets (pkg/printers/internalversion). */

const shown = 3;

/** listWithMoreString: the first three, then " + N more..."; "<unset>" when there are none. */
function listWithMore(items: readonly string[]): string {
  const text = items.slice(0, shown).join(',');
  if (items.length > shown) return `${text} + ${items.length - shown} more...`;
  return text === '' ? '<unset>' : text;
}

/** formatDiscoveryPorts: a port's number, else its name, else "*". */
export const slicePortsText = (slice: EndpointSlice): string => listWithMore((slice.ports ?? []).map((p) => (p.port !== undefined && p.port !== null ? String(p.port) : (p.name ?? '*'))));

/** formatDiscoveryEndpoints: every address of every endpoint. */
export const sliceEndpointsText = (slice: EndpointSlice): string => listWithMore((slice.endpoints ?? []).flatMap((e) => e.addresses ?? []));

export const endpointSlicePrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'AddressType', type: 'string', description: 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same address type. This field is immutable after creation.' },
    { name: 'Ports', type: 'string', description: 'ports specifies the list of network ports exposed by each endpoint in this slice.' },
    { name: 'Endpoints', type: 'string', description: 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.' },
    ageColumn,
  ],
  cells(obj, now) {
    const slice = obj as EndpointSlice;
    return [slice.metadata.name ?? '', slice.addressType ?? '', slicePortsText(slice), sliceEndpointsText(slice), age(slice.metadata.creationTimestamp, now)];
  },
};

const intOrStringText = (v: number | string | undefined): string => (v === undefined || v === null ? 'N/A' : String(v));

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.' },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.' },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.' },
    ageColumn,
  ],
  cells(obj, now) {
    const pdb = obj as PodDisruptionBudget;
    const spec = pdb.spec ?? {};
    return [pdb.metadata.name ?? '', intOrStringText(spec.minAvailable), intOrStringText(spec.maxUnavailable), pdb.status?.disruptionsAllowed ?? 0, age(pdb.metadata.creationTimestamp, now)];
  },
};
