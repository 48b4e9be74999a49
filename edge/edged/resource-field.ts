import { parseQuantity } from '../../shared/quantity.js';
import type { ResourceFieldSelector } from '../../shared/volume-types.js';
import type { Container, Pod } from '../../shared/types.js';
import { NODE_ALLOCATABLE } from './node-status.js';

/** What a container without a limit may use: the node's allocatable (kubelet's defaultPodLimitsForDownwardAPI). */
export type Allocatable = Readonly<Record<string, string>>;

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

function nanosOf(text: string | undefined): bigint {
  const parsed = parseQuantity(text ?? '0');
  return parsed.ok ? parsed.nanos : 0n;
}

/** ceil(quantity / divisor), in thousandths for CPU (kube's MilliValue) and units otherwise, as kube prints it. */
function divided(quantity: string | undefined, divisor: string | undefined, cpu: boolean): string {
  const unit = cpu ? 1_000_000n : 1_000_000_000n;
  const value = ceilDiv(nanosOf(quantity), unit);
  const by = ceilDiv(nanosOf(divisor ?? '1'), unit);
  return by === 0n ? '0' : ceilDiv(value, by).toString();
}

/**
 * A `resourceFieldRef`'s value (kube's ExtractContainerResourceValue over a container whose
 * missing limits default to the node's allocatable, and whose missing requests default to its
 * limits as the apiserver sets them). Throws for a resource kube does not support.
 */
export function resourceFieldValue(field: ResourceFieldSelector, pod: Pod, container: Container, allocatable: Allocatable = NODE_ALLOCATABLE): string {
  const target = field.containerName ? pod.spec.containers.find((c) => c.name === field.containerName) : container;
  if (!target) throw new Error(`container ${field.containerName} not found`);
  const match = /^(limits|requests)\.(cpu|memory|ephemeral-storage)$/.exec(field.resource);
  if (!match) throw new Error(`unsupported container resource : ${field.resource}`);
  const [, kind, name] = match as unknown as [string, 'limits' | 'requests', string];
  const limits = target.resources?.limits ?? {};
  const requests = target.resources?.requests ?? {};
  const limit = limits[name] ?? allocatable[name];
  const quantity = kind === 'limits' ? limit : (requests[name] ?? limits[name]);
  return divided(quantity, field.divisor, name === 'cpu');
}
