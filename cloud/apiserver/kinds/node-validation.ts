import { isIP } from 'node:net';
import type { StatusCause } from '../../../shared/errors.js';
import type { Node } from '../../../shared/types.js';
import { invalidValue } from '../admission/admission.js';
import type { AdmissionContext } from './registry.js';

/** kube's v1 Node conversion: podCIDRs from podCIDR when only that is given, and podCIDR is podCIDRs[0]. Mutates. */
export function normalizePodCIDRs(node: Node): void {
  const spec = node.spec;
  if (!spec || typeof spec !== 'object') return;
  if (spec.podCIDRs == null && spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
  if (spec.podCIDRs && spec.podCIDRs.length > 0) spec.podCIDR = spec.podCIDRs[0];
  else delete spec.podCIDR;
}

/** IPv4 or IPv6 family of "address/prefix" (netutils.ParseCIDRSloppy), or undefined when it is not one. */
function cidrFamily(text: string): 4 | 6 | undefined {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address) as 0 | 4 | 6;
  if (family === 0 || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return undefined;
  return Number(prefix) <= (family === 4 ? 32 : 128) ? family : undefined;
}

/**
 * ValidateNode's podCIDRs part (valid CIDRs, at most one per IP family) and ValidateNodeUpdate's
 * (once set, they never change: only the node-IPAM controller's first write is accepted).
 */
export function validatePodCIDRs(node: Node, ctx: AdmissionContext): StatusCause[] {
  const cidrs = node.spec?.podCIDRs ?? [];
  const causes: StatusCause[] = [];
  const families = cidrs.map(cidrFamily);
  families.forEach((family, i) => {
    if (family === undefined) causes.push(invalidValue(`spec.podCIDRs[${i}]`, cidrs[i], 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  });
  if (cidrs.length > 2 || (cidrs.length === 2 && families[0] === families[1])) {
    causes.push(invalidValue('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  }
  const old = (ctx.old as Node | undefined)?.spec?.podCIDRs ?? [];
  if (ctx.operation === 'update' && old.length > 0 && (old.length !== cidrs.length || old.some((c, i) => c !== cidrs[i]))) {
    causes.push({ reason: 'FieldValueForbidden', field: 'spec.podCIDRs', message: 'Forbidden: node updates may not change podCIDR except from "" to valid' });
  }
  return causes;
}

/** ValidateNodeUpdate's providerID rule: set once, from "" to a value, then fixed. */
export function providerIDUnchanged(node: Node, ctx: AdmissionContext): StatusCause[] {
  const old = (ctx.old as Node | undefined)?.spec?.providerID;
  if (ctx.operation !== 'update' || !old || old === node.spec?.providerID) return [];
  return [{ reason: 'FieldValueForbidden', field: 'spec.providerID', message: 'Forbidden: node updates may not change providerID except from "" to valid' }];
}
