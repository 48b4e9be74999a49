/**
 * Every protocol and control interval, in milliseconds, in one profile. Defaults follow
 * Kubernetes and KubeEdge; `scaleTiming(profile, S)` divides them all by S so that a long
 * partition can be acted out quickly (`--time-scale S`).
 */
export interface Timing {
  /** Edge: how often the node says it is alive (kubelet nodeStatusUpdateFrequency). */
  nodeStatusIntervalMs: number;
  /** Edge: longest time between two full node statuses when nothing changed (kubelet nodeStatusReportFrequency). */
  nodeStatusReportMs: number;
  /** Edge: how often edged compares desired and actual pods. */
  syncIntervalMs: number;
  /** Edge: shortest wait before re-sending unacked status updates. */
  statusResendMs: number;
  /** Edge: reconnect backoff, doubling from min to max with jitter; a low cap means a healed link is used within a second. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** MQTT keepalive (seconds on the wire; the broker drops a silent client after 1.5x). */
  keepaliveMs: number;
  /** Edge: how long one attempt to connect to the broker may take; not shortened with a shorter keepalive, as a busy broker may need it. */
  connectTimeoutMs: number;
  /** Cloud: first re-send of an unacked message, doubling up to the max. */
  resendMinMs: number;
  resendMaxMs: number;
  /** Cloud: node monitor period and grace period (node lifecycle). */
  nodeMonitorPeriodMs: number;
  nodeMonitorGraceMs: number;
  /** Cloud: how long an Event is kept after its last write (kube-apiserver --event-ttl, `kedge cloud --event-ttl`). */
  eventTtlMs: number;
  /** Sim runtime: default time a container takes to start. */
  containerStartMs: number;
  /** Edge: how often it reports its pods' and its own CPU and memory usage (metrics-server's --metric-resolution). */
  metricsResolutionMs: number;
  /** Cloud: leader election as client-go's (--leader-elect-lease-duration, -renew-deadline, -retry-period). */
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /**
   * How many times faster than real time this profile runs (1 = real time). Durations that
   * live in objects rather than here (a pod's tolerationSeconds, a node's autonomy duration)
   * are divided by it too.
   */
  timeScale: number;
}

export const defaultTiming: Timing = {
  nodeStatusIntervalMs: 10_000,
  nodeStatusReportMs: 300_000,
  syncIntervalMs: 1_000,
  statusResendMs: 2_000,
  reconnectMinMs: 250,
  reconnectMaxMs: 1_000,
  keepaliveMs: 10_000,
  connectTimeoutMs: 10_000,
  resendMinMs: 2_000,
  resendMaxMs: 60_000,
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGraceMs: 40_000,
  eventTtlMs: 3_600_000,
  containerStartMs: 200,
  metricsResolutionMs: 15_000,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  timeScale: 1,
};

/** A duration written in an object (seconds of real time), in this profile's milliseconds. */
export function scaledMs(timing: Pick<Timing, 'timeScale'>, seconds: number): number {
  return (seconds * 1000) / timing.timeScale;
}

/** The keepalive MQTT carries (whole seconds, at least 1) for a profile's keepaliveMs. */
export function keepaliveSeconds(keepaliveMs: number): number {
  return Math.max(1, Math.round(keepaliveMs / 1000));
}

export function scaleTiming(timing: Timing, scale: number): Timing {
  if (!(scale > 0)) throw new RangeError(`time scale must be positive, got ${scale}`);
  const out = { ...timing, timeScale: timing.timeScale * scale };
  for (const key of Object.keys(out) as (keyof Timing)[]) {
    if (key !== 'timeScale') out[key] = Math.max(1, Math.round(timing[key] / scale));
  }
  return out;
}
