import type { StatusCause } from '../../../shared/errors.js';
import { parseQuantity } from '../../../shared/quantity.js';
import { invalidValue } from './admission.js';

/**
 * The resource quantities an object carries, validated at admission as kube-apiserver does
 * (its decoding and ValidateResourceRequirements, ValidateResourceQuantityValue,
 * ValidateNodeResources): kube's grammar, no negative amounts, whole numbers of countable
 * resources, requests within limits. A value that fails is a 422 cause naming its field, so
 * nothing downstream (the scheduler) ever reads a quantity the API did not check.
 */

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const entriesOf = (v: unknown): [string, unknown][] => (isMap(v) ? Object.entries(v) : []);
const itemsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];

/** A quantity given as a JSON number, as kube accepts it, becomes the string kube would store. */
export function normalizePodSpecQuantities(spec: unknown): void {
  if (!isMap(spec)) return;
  for (const list of CONTAINER_LISTS) for (const c of itemsOf(spec[list])) if (isMap(c)) normalizeRequirements(c.resources);
  normalizeRequirements(spec.resources);
  normalizeQuantityMap(spec.overhead);
}

export function normalizeNodeQuantities(status: unknown): void {
  if (!isMap(status)) return;
  normalizeQuantityMap(status.capacity);
  normalizeQuantityMap(status.allocatable);
}

function normalizeRequirements(r: unknown): void {
  if (!isMap(r)) return;
  normalizeQuantityMap(r.requests);
  normalizeQuantityMap(r.limits);
}

/** Quantities written as JSON numbers in a map of resource name to quantity become strings. */
export function normalizeQuantityMap(map: unknown): void {
  if (!isMap(map)) return;
  for (const [k, v] of Object.entries(map)) if (typeof v === 'number' && Number.isFinite(v)) map[k] = String(v);
}

/** Every quantity of a pod spec: containers' (all kinds) and the pod's resources, overhead, emptyDir size limits. */
export function validatePodSpecQuantities(spec: unknown, at = 'spec'): StatusCause[] {
  if (!isMap(spec)) return [];
  const causes: StatusCause[] = [];
  for (const list of CONTAINER_LISTS) {
    itemsOf(spec[list]).forEach((c, i) => {
      if (isMap(c)) causes.push(...validateRequirements(c.resources, `${at}.${list}[${i}].resources`));
    });
  }
  causes.push(...validateRequirements(spec.resources, `${at}.resources`));
  causes.push(...validateQuantityMap(spec.overhead, `${at}.overhead`));
  itemsOf(spec.volumes).forEach((v, i) => {
    const emptyDir = isMap(v) ? v.emptyDir : undefined;
    if (isMap(emptyDir) && emptyDir.sizeLimit !== undefined && emptyDir.sizeLimit !== null) {
      causes.push(...checkQuantity('', emptyDir.sizeLimit, `${at}.volumes[${i}].emptyDir.sizeLimit`).causes);
    }
  });
  return causes;
}

/** A map of resource name to quantity (a pod's or RuntimeClass's overhead), with each field named `at[name]`. */
export function validateQuantityMap(map: unknown, at: string): StatusCause[] {
  return entriesOf(map).flatMap(([name, value]) => checkQuantity(name, value, `${at}[${name}]`).causes);
}

/** A Node's capacity and allocatable (ValidateNodeResources); edges write them with their status. */
export function validateNodeQuantities(status: unknown): StatusCause[] {
  if (!isMap(status)) return [];
  return ['capacity', 'allocatable'].flatMap((part) => entriesOf(status[part]).flatMap(([name, value]) => checkQuantity(name, value, `status.${part}.${name}`).causes));
}

function validateRequirements(r: unknown, at: string): StatusCause[] {
  if (!isMap(r)) return [];
  const causes: StatusCause[] = [];
  const limits = new Map<string, Checked>();
  for (const [name, value] of entriesOf(r.limits)) {
    const checked = checkQuantity(name, value, `${at}.limits[${name}]`);
    causes.push(...checked.causes);
    limits.set(name, checked);
  }
  for (const [name, value] of entriesOf(r.requests)) {
    const request = checkQuantity(name, value, `${at}.requests[${name}]`);
    causes.push(...request.causes);
    const limit = limits.get(name);
    if (request.signed === undefined) continue;
    if (!limit) {
      if (!overcommitAllowed(name)) causes.push({ reason: 'FieldValueRequired', message: 'Required value: Limit must be set for non overcommitable resources', field: `${at}.limits` });
      continue;
    }
    if (limit.signed === undefined) continue;
    if (request.signed !== limit.signed && !overcommitAllowed(name)) {
      causes.push(invalidValue(`${at}.requests`, value, `must be equal to ${name} limit of ${String(limit.value)}`));
    } else if (request.signed > limit.signed) {
      causes.push(invalidValue(`${at}.requests`, value, `must be less than or equal to ${name} limit of ${String(limit.value)}`));
    }
  }
  return causes;
}

interface Checked {
  value: unknown;
  /** In nano-units, with its sign; undefined when the value is no quantity. */
  signed?: bigint;
  causes: StatusCause[];
}

/** ValidateResourceQuantityValue, after the grammar kube's decoding applies. */
function checkQuantity(name: string, value: unknown, field: string): Checked {
  const parsed = parseQuantity(value);
  if (!parsed.ok) return { value, causes: [invalidValue(field, value, parsed.error)] };
  const signed = parsed.negative ? -parsed.nanos : parsed.nanos;
  const causes: StatusCause[] = [];
  if (parsed.negative) causes.push(invalidValue(field, value, 'must be greater than or equal to 0'));
  if (isIntegerResource(name) && parsed.nanos % 1_000_000_000n !== 0n) causes.push(invalidValue(field, value, 'must be an integer'));
  return { value, signed, causes };
}

/** Native resources (no domain, or a kubernetes.io one) but huge pages may be requested below their limit. */
function overcommitAllowed(name: string): boolean {
  return isNative(name) && !name.startsWith('hugepages-');
}

const countedResources = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

/** Pods and the other counted resources, and extended resources (example.com/gpu), come in whole numbers. */
function isIntegerResource(name: string): boolean {
  return countedResources.has(name) || (!isNative(name) && !name.startsWith('requests.'));
}

function isNative(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}
