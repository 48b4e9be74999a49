import { scaledQuantity } from '../../shared/quantity.js';

/**
 * A quantity as the scheduler counts it (shared/quantity.ts: kube's grammar, bounded work,
 * rounded up as resource.Quantity's Value and MilliValue do); undefined when malformed or
 * out of range.
 */

/** The quantity in whole units (bytes, cores, pods), rounded up. */
export function quantityValue(text: unknown): number | undefined {
  return scaledQuantity(text, 0);
}

/** The quantity in thousandths (millicores), rounded up. */
export function quantityMilliValue(text: unknown): number | undefined {
  return scaledQuantity(text, 3);
}
