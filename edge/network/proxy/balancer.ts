import type { Clock } from '../../../shared/clock.js';

interface Affinity {
  endpoint: string;
  lastUsed: number;
}

/** Fisher-Yates over a copy, with the random source given (tests make it deterministic). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const inB = new Set(b);
  return a.length === b.length && a.every((e) => inB.has(e));
}

/**
 * One Service port's load balancer, as userspace kube-proxy's LoadBalancerRR: round robin over
 * the endpoints, shuffled (and the index reset) whenever the set changes; with ClientIP
 * affinity, a client IP keeps its endpoint while it used it within `affinityMs`, unless a
 * dial to it failed (`reset`), and loses it when the endpoint goes.
 */
export class Balancer {
  private endpoints: string[] = [];
  private index = 0;
  private affinityMs: number | undefined;
  private readonly affinity = new Map<string, Affinity>();

  constructor(private readonly clock: Clock, private readonly random: () => number) {}

  update(endpoints: readonly string[], affinityMs: number | undefined): void {
    if (affinityMs !== this.affinityMs) this.affinity.clear();
    this.affinityMs = affinityMs;
    if (sameSet(endpoints, this.endpoints)) return;
    const kept = new Set(endpoints);
    for (const [ip, a] of this.affinity) if (!kept.has(a.endpoint)) this.affinity.delete(ip);
    this.endpoints = shuffled(endpoints, this.random);
    this.index = 0;
  }

  size(): number {
    return this.endpoints.length;
  }

  /** The endpoint for a new connection from `clientIP`; undefined when there is none. */
  next(clientIP: string, reset = false): string | undefined {
    if (this.endpoints.length === 0) return undefined;
    const now = this.clock.now();
    const sticky = this.affinityMs === undefined ? undefined : this.affinity.get(clientIP);
    if (sticky && !reset && now - sticky.lastUsed < this.affinityMs!) {
      sticky.lastUsed = now;
      return sticky.endpoint;
    }
    const endpoint = this.endpoints[this.index]!;
    this.index = (this.index + 1) % this.endpoints.length;
    if (this.affinityMs !== undefined) this.affinity.set(clientIP, { endpoint, lastUsed: now });
    return endpoint;
  }
}
