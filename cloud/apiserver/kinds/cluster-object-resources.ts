import { DISCOVERY_GROUP, POLICY_GROUP, type EndpointSlice, type PodDisruptionBudget } from '../../../shared/cluster-object-types.js';
import type { StatusCause } from '../../../shared/errors.js';
import { invalidValue, required, unsupported } from '../admission/admission.js';
import { intOrPercent } from './apps-validation.js';
import { endpointSlicePrinter, podDisruptionBudgetPrinter } from './cluster-object-printers.js';
import type { AdmissionContext, ResourceDef } from './registry.js';

/**
 * discovery.k8s.io/v1 EndpointSlices (kept by the endpointslice controller beside Endpoints)
 * and policy/v1 PodDisruptionBudgets (status kept by the disruption controller, honoured by
 * pods/eviction), as kube-apiserver serves them.
 */

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'] as const;
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;

export const endpointSliceResource: ResourceDef = {
  group: DISCOVERY_GROUP, version: 'v1', resource: 'endpointslices', singular: 'endpointslice', kind: 'EndpointSlice', namespaced: true,
  shortNames: [], categories: [], subresources: [], printer: endpointSlicePrinter,
  strategy: {
    defaultOnCreate(obj) {
      for (const port of (obj as EndpointSlice).ports ?? []) port.protocol ??= 'TCP';
    },
    validate: (obj, ctx) => validateEndpointSlice(obj as EndpointSlice, ctx),
  },
};

export const podDisruptionBudgetResource: ResourceDef = {
  group: POLICY_GROUP, version: 'v1', resource: 'poddisruptionbudgets', singular: 'poddisruptionbudget', kind: 'PodDisruptionBudget', namespaced: true,
  shortNames: ['pdb'], categories: [], subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }], printer: podDisruptionBudgetPrinter,
  strategy: {
    // PrepareForCreate: the status is the disruption controller's; it starts empty.
    defaultOnCreate: (obj) => void ((obj as PodDisruptionBudget).status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
    validate: (obj) => validatePodDisruptionBudget(obj as PodDisruptionBudget),
  },
};

export const clusterObjectResources: ResourceDef[] = [endpointSliceResource, podDisruptionBudgetResource];

/** ValidateEndpointSlice (the address counts and types) and ValidateEndpointSliceUpdate (addressType immutable). */
function validateEndpointSlice(slice: EndpointSlice, ctx: AdmissionContext): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!slice.addressType) causes.push(required('addressType'));
  else if (!(ADDRESS_TYPES as readonly string[]).includes(slice.addressType)) causes.push(unsupported('addressType', slice.addressType, ADDRESS_TYPES));
  const old = ctx.old as EndpointSlice | undefined;
  if (ctx.operation === 'update' && old && old.addressType !== slice.addressType) causes.push(invalidValue('addressType', slice.addressType, 'field is immutable'));
  const endpoints = slice.endpoints ?? [];
  if (!Array.isArray(endpoints)) return [...causes, invalidValue('endpoints', endpoints, 'must be a list')];
  if (endpoints.length > MAX_ENDPOINTS) causes.push({ reason: 'FieldValueTooMany', field: 'endpoints', message: `Too many: ${endpoints.length}: must have at most ${MAX_ENDPOINTS} items` });
  endpoints.forEach((endpoint, i) => {
    const addresses = endpoint.addresses ?? [];
    const at = `endpoints[${i}].addresses`;
    if (addresses.length === 0) causes.push({ reason: 'FieldValueRequired', field: at, message: 'Required value: must contain at least 1 address' });
    if (addresses.length > MAX_ADDRESSES) causes.push({ reason: 'FieldValueTooMany', field: at, message: `Too many: ${addresses.length}: must have at most ${MAX_ADDRESSES} items` });
  });
  const ports = slice.ports ?? [];
  if (ports.length > MAX_PORTS) causes.push({ reason: 'FieldValueTooMany', field: 'ports', message: `Too many: ${ports.length}: must have at most ${MAX_PORTS} items` });
  return causes;
}

/** ValidatePodDisruptionBudgetSpec: one of minAvailable and maxUnavailable, each a non-negative int or a percent up to 100%. */
function validatePodDisruptionBudget(pdb: PodDisruptionBudget): StatusCause[] {
  const spec = pdb.spec ?? {};
  const causes: StatusCause[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    causes.push(invalidValue('spec.minAvailable', spec.minAvailable, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const field of ['minAvailable', 'maxUnavailable'] as const) {
    const value = spec[field];
    causes.push(...intOrPercent(`spec.${field}`, value));
    if (typeof value === 'string' && /^[0-9]+%$/.test(value) && parseInt(value, 10) > 100) causes.push(invalidValue(`spec.${field}`, value, 'must not be greater than 100%'));
  }
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== 'IfHealthyBudget' && policy !== 'AlwaysAllow') {
    causes.push(unsupported('spec.unhealthyPodEvictionPolicy', policy, ['AlwaysAllow', 'IfHealthyBudget']));
  }
  return causes;
}
