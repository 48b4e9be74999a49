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

  /** `maxAffinity`: client IPs remembered at most; the least recently used goes first. */
  constructor(private readonly clock: Clock, private readonly random: () => number, private readonly maxAffinity = 10_000) {}

  /** Client IPs with an affinity held. */
  affinityCount(): number {
    return this.affinity.size;
  }

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
    if (this.affinityMs !== undefined) this.dropExpired(now, this.affinityMs);
    const sticky = this.affinityMs === undefined ? undefined : this.affinity.get(clientIP);
    const endpoint = sticky && !reset ? sticky.endpoint : this.endpoints[this.index]!;
    if (!sticky || reset) this.index = (this.index + 1) % this.endpoints.length;
    if (this.affinityMs !== undefined) this.remember(clientIP, endpoint, now);
    return endpoint;
  }

  /** The map is in order of last use (an entry used moves to the end): the expired ones are first. */
  private dropExpired(now: number, affinityMs: number): void {
    for (const [ip, a] of this.affinity) {
      if (now - a.lastUsed < affinityMs) return;
      this.affinity.delete(ip);
    }
  }

  private remember(clientIP: string, endpoint: string, now: number): void {
    this.affinity.delete(clientIP);
    this.affinity.set(clientIP, { endpoint, lastUsed: now });
    for (const ip of this.affinity.keys()) {
      if (this.affinity.size <= this.maxAffinity) return;
      this.affinity.delete(ip);
    }
  }
}
