/**
 * What the probes say about one running container: the seam between the prober, which runs
 * them on its own timers, and edged's pure plan and status, which read a snapshot of it.
 */
export interface ContainerProbeStatus {
  /** From the readiness probe; absent when the container has none. */
  ready?: boolean;
  /** From the startup probe; absent when the container has none. */
  started?: boolean;
  /** Set once the liveness or startup probe failed failureThreshold times in a row: why edged kills the container. */
  unhealthy?: string;
}

/** By container id. */
export type ProbeStatuses = ReadonlyMap<string, ContainerProbeStatus>;
