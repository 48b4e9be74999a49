import { parseQuantity } from '../../shared/quantity.js';

/**
 * What a simulated container uses, from its pod's annotation (docs/runtime-sim.md):
 *   kedge.io/sim-usage: "cpu=250m,memory=64Mi"   each running container of the pod
 * A part left out or malformed takes its default (SIM_USAGE_DEFAULT).
 */
export const SIM_USAGE_ANNOTATION = 'kedge.io/sim-usage';

/** A rate of CPU and an amount of memory, as the numbers metrics-server reports. */
export interface Usage {
  /** CPU in nanocores (1e9 = one core). */
  nanocores: number;
  memoryBytes: number;
}

/** What an idle simulated container uses: 1m of CPU and 8Mi of memory. */
export const SIM_USAGE_DEFAULT: Usage = { nanocores: 1_000_000, memoryBytes: 8 * 1024 * 1024 };

export const ZERO_USAGE: Usage = { nanocores: 0, memoryBytes: 0 };

/** The usage a pod's annotations ask for its simulated containers. */
export function simUsageOf(annotations: Record<string, string> | undefined): Usage {
  const usage = { ...SIM_USAGE_DEFAULT };
  for (const part of (annotations?.[SIM_USAGE_ANNOTATION] ?? '').split(',')) {
    const [key, value] = part.split('=').map((s) => s.trim());
    const amount = nonNegative(value);
    if (amount === undefined) continue;
    // Quantities count in nano-units: a CPU's are nanocores, memory's are nanobytes.
    if (key === 'cpu') usage.nanocores = Number(amount);
    else if (key === 'memory') usage.memoryBytes = Number(amount / 1_000_000_000n);
  }
  return usage;
}

function nonNegative(value: string | undefined): bigint | undefined {
  const parsed = parseQuantity(value);
  return parsed.ok && !parsed.negative ? parsed.nanos : undefined;
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { nanocores: a.nanocores + b.nanocores, memoryBytes: a.memoryBytes + b.memoryBytes };
}

/** As metrics-server writes it: cpu in nanocores ("250000000n"), memory in whole Ki ("65536Ki"); absurd amounts capped. */
export function usageQuantities(usage: Usage): { cpu: string; memory: string } {
  return { cpu: `${whole(usage.nanocores)}n`, memory: `${whole(usage.memoryBytes / 1024)}Ki` };
}

const whole = (n: number): number => Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(n)));
