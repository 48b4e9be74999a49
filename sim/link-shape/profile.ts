import { formatGoDuration } from '../../shared/go-duration.js';

/**
 * A link profile: how a link proxy shapes the bytes it forwards (docs/operations.md, "Shaping a
 * link"). Durations are milliseconds of cluster time, rates bits per second of cluster time.
 * Up is edge → broker, down is broker → edge.
 */
export interface LinkProfile {
  /** `satellite`, `3g`, `wifi-flaky`, `lan`, or `custom` for one given field by field. */
  name: string;
  /** One-way delay of each chunk (the round trip is twice this). */
  latencyMs: number;
  /** Each chunk's delay is latency ± up to this much (uniform), never reordering a direction. */
  jitterMs: number;
  /** Chance, in percent, that a 1500-byte segment is lost and has to be retransmitted. */
  lossPercent: number;
  /** Rate caps in bit/s; 0: no cap. */
  rateUpBps: number;
  rateDownBps: number;
  /** Seeds the jitter and loss draws, so a run can be replayed; none: the proxy's own random source. */
  seed?: number;
}

/** What one direction of a link sees of its profile. */
export interface LaneProfile {
  latencyMs: number;
  jitterMs: number;
  lossPercent: number;
  /** bit/s; 0: no cap. */
  rateBps: number;
}

export const PROFILE_NAMES = ['satellite', '3g', 'wifi-flaky', 'lan'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

const KBIT = 1000;
const MBIT = 1_000_000;

/**
 * Named profiles, with where their figures come from:
 * - satellite: a geostationary link; 36,000 km up and down again is ~240 ms of light each way,
 *   ~600 ms round trip with the ground segment; 1% loss and 256 kbit/s are a small VSAT terminal's.
 * - 3g: WebPageTest's "3G" connectivity profile (300 ms round trip, 1.6 Mbit/s down, 768 kbit/s up),
 *   with the jitter and the little loss a cellular radio link shows.
 * - wifi-flaky: a congested 2.4 GHz Wi-Fi at the edge of its range: a few ms, but ±15 ms of jitter
 *   and 3% loss (802.11 retries give up), 10 Mbit/s.
 * - lan: nothing shaped (the fast path, as with no profile).
 */
export const NAMED_PROFILES: Record<ProfileName, LinkProfile> = {
  satellite: { name: 'satellite', latencyMs: 300, jitterMs: 20, lossPercent: 1, rateUpBps: 256 * KBIT, rateDownBps: 256 * KBIT },
  '3g': { name: '3g', latencyMs: 150, jitterMs: 30, lossPercent: 0.5, rateUpBps: 768 * KBIT, rateDownBps: 1.6 * MBIT },
  'wifi-flaky': { name: 'wifi-flaky', latencyMs: 5, jitterMs: 15, lossPercent: 3, rateUpBps: 10 * MBIT, rateDownBps: 10 * MBIT },
  lan: { name: 'lan', latencyMs: 0, jitterMs: 0, lossPercent: 0, rateUpBps: 0, rateDownBps: 0 },
};

/** Bounds a profile's fields are checked against (a typo must not stall a link for days). */
export const LIMITS = {
  latencyMs: 60_000,
  jitterMs: 60_000,
  lossPercent: 50,
  minRateBps: 1 * KBIT,
  maxRateBps: 10_000 * MBIT,
} as const;

/** True when the profile changes nothing: such a link takes the unshaped fast path. */
export function shapesNothing(p: LinkProfile): boolean {
  return p.latencyMs === 0 && p.jitterMs === 0 && p.lossPercent === 0 && p.rateUpBps === 0 && p.rateDownBps === 0;
}

export function laneProfile(p: LinkProfile, direction: 'up' | 'down'): LaneProfile {
  return { latencyMs: p.latencyMs, jitterMs: p.jitterMs, lossPercent: p.lossPercent, rateBps: direction === 'up' ? p.rateUpBps : p.rateDownBps };
}

/** `64kbit`, `1.6mbit`, `500bit`: tc's units (1 kbit = 1000 bit/s). */
export function formatRate(bps: number): string {
  if (bps >= MBIT && bps % (MBIT / 10) === 0) return `${bps / MBIT}mbit`;
  if (bps >= KBIT && bps % (KBIT / 10) === 0) return `${bps / KBIT}kbit`;
  return `${bps}bit`;
}

/** One word for a table: `300ms±20ms,loss=1%,up=256kbit,down=256kbit`, `-` when nothing is shaped. */
export function describeProfile(p: LinkProfile): string {
  const parts: string[] = [];
  const ms = formatGoDuration;
  if (p.latencyMs > 0 || p.jitterMs > 0) parts.push(p.jitterMs > 0 ? `${ms(p.latencyMs)}±${ms(p.jitterMs)}` : ms(p.latencyMs));
  if (p.lossPercent > 0) parts.push(`loss=${p.lossPercent}%`);
  if (p.rateUpBps > 0) parts.push(`up=${formatRate(p.rateUpBps)}`);
  if (p.rateDownBps > 0) parts.push(`down=${formatRate(p.rateDownBps)}`);
  return parts.join(',') || '-';
}
