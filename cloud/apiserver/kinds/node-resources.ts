import type { Lease, RuntimeClass } from '../../../shared/config-types.js';
import type { StatusCause } from '../../../shared/errors.js';
import { checkLabel, invalidValue } from '../admission/admission.js';
import { checkStringMap, undecodable } from './config-data.js';
import { normalizeQuantityMap, validateQuantityMap } from '../admission/quantity-validation.js';
import { leasePrinter, runtimeClassPrinter } from './config-printers.js';
import type { AdmissionContext, ResourceDef } from './registry.js';

/**
 * coordination.k8s.io/v1 Leases (node heartbeats in kube-node-lease) and node.k8s.io/v1
 * RuntimeClasses (which runtime an edge runs a pod with), as kube-apiserver serves them.
 */

export const COORDINATION_GROUP = 'coordination.k8s.io';
export const NODE_GROUP = 'node.k8s.io';

export const leaseResource: ResourceDef = {
  group: COORDINATION_GROUP, version: 'v1', resource: 'leases', singular: 'lease', kind: 'Lease', namespaced: true,
  shortNames: [], categories: [], subresources: [], printer: leasePrinter,
  strategy: {
    normalize: (obj) => checkLeaseTypes(obj as Lease),
    validate: (obj) => validateLease(obj as Lease),
  },
};

export const runtimeClassResource: ResourceDef = {
  group: NODE_GROUP, version: 'v1', resource: 'runtimeclasses', singular: 'runtimeclass', kind: 'RuntimeClass', namespaced: false,
  shortNames: [], categories: [], subresources: [], printer: runtimeClassPrinter,
  strategy: {
    normalize(obj) {
      normalizeQuantityMap((obj as RuntimeClass).overhead?.podFixed);
      checkRuntimeClassTypes(obj as RuntimeClass);
    },
    validate: (obj, ctx) => validateRuntimeClass(obj as RuntimeClass, ctx),
  },
};

/** MicroTime as Go parses it: RFC 3339, fractions optional. */
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function checkLeaseTypes(lease: Lease): void {
  const spec = lease.spec as unknown;
  if (spec === undefined || spec === null) return;
  if (typeof spec !== 'object' || Array.isArray(spec)) throw undecodable('Lease', 'json: cannot unmarshal into Go struct field Lease.spec of type v1.LeaseSpec');
  const s = spec as Record<string, unknown>;
  for (const field of ['leaseDurationSeconds', 'leaseTransitions']) {
    const v = s[field];
    if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > 2 ** 31 - 1)) {
      throw undecodable('Lease', `json: cannot unmarshal ${JSON.stringify(v)} into Go struct field LeaseSpec.spec.${field} of type int32`);
    }
  }
  for (const field of ['holderIdentity', 'strategy', 'preferredHolder']) {
    const v = s[field];
    if (v !== undefined && v !== null && typeof v !== 'string') throw undecodable('Lease', `json: cannot unmarshal ${typeof v} into Go struct field LeaseSpec.spec.${field} of type string`);
  }
  for (const field of ['acquireTime', 'renewTime']) {
    const v = s[field];
    if (v !== undefined && v !== null && (typeof v !== 'string' || !rfc3339.test(v) || Number.isNaN(Date.parse(v)))) {
      throw undecodable('Lease', `parsing time ${JSON.stringify(String(v))} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`);
    }
  }
}

/** ValidateLeaseSpec. */
function validateLease(lease: Lease): StatusCause[] {
  const spec = lease.spec ?? {};
  const causes: StatusCause[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && spec.leaseDurationSeconds <= 0) {
    causes.push(invalidValue('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
    causes.push(invalidValue('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy && spec.strategy !== 'OldestEmulationVersion') {
    causes.push({ reason: 'FieldValueNotSupported', field: 'spec.strategy', message: `Unsupported value: ${JSON.stringify(spec.strategy)}: supported values: "OldestEmulationVersion"` });
  }
  if (spec.preferredHolder && !spec.strategy) {
    causes.push({ reason: 'FieldValueForbidden', field: 'spec.preferredHolder', message: 'Forbidden: may only be specified if `strategy` is defined' });
  }
  return causes;
}

function checkRuntimeClassTypes(rc: RuntimeClass): void {
  const handler = rc.handler as unknown;
  if (handler !== undefined && handler !== null && typeof handler !== 'string') {
    throw undecodable('RuntimeClass', `json: cannot unmarshal ${typeof handler} into Go struct field RuntimeClass.handler of type string`);
  }
  for (const field of ['overhead', 'scheduling'] as const) {
    const v = rc[field] as unknown;
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) {
      throw undecodable('RuntimeClass', `json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go struct field RuntimeClass.${field}`);
    }
  }
  checkStringMap('RuntimeClass', 'scheduling.nodeSelector', rc.scheduling?.nodeSelector);
}

/** ValidateRuntimeClass (handler is a DNS label, so "" fails too) and ValidateRuntimeClassUpdate (handler immutable). */
function validateRuntimeClass(rc: RuntimeClass, ctx: AdmissionContext): StatusCause[] {
  const handler = rc.handler ?? '';
  const causes = checkLabel('handler', handler);
  const old = ctx.old as RuntimeClass | undefined;
  if (ctx.operation === 'update' && old && old.handler !== handler) causes.push(invalidValue('handler', handler, 'field is immutable'));
  const tolerations = rc.scheduling?.tolerations as unknown;
  if (tolerations !== undefined && tolerations !== null && !Array.isArray(tolerations)) causes.push(invalidValue('scheduling.tolerations', tolerations, 'must be a list'));
  return [...causes, ...validateQuantityMap(rc.overhead?.podFixed, 'overhead.podFixed')];
}
