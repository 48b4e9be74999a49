import { scaledMs, type Timing } from '../../shared/timing.js';
import type { Probe } from '../../shared/types.js';
import type { ProbeKind } from '../runtime/runtime.js';

/** Kubernetes' defaults for a probe's timing fields (a field left out or 0 takes them). */
export const PROBE_DEFAULTS = { initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 } as const;

/** A probe's timing, ready to use: delay and period in this profile's (scaled) ms, the timeout in real ms. */
export interface ProbeSettings {
  initialDelayMs: number;
  periodMs: number;
  /** Not scaled: a real process answers no faster under a time scale. */
  timeoutMs: number;
  failureThreshold: number;
  successThreshold: number;
}

/** A positive whole number, or the default when left out, 0 or not a number. */
const positive = (value: number | undefined, fallback: number): number => (value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback);

export function probeSettings(probe: Probe, kind: ProbeKind, timing: Pick<Timing, 'timeScale'>): ProbeSettings {
  const delay = probe.initialDelaySeconds;
  return {
    initialDelayMs: scaledMs(timing, delay !== undefined && Number.isFinite(delay) && delay > 0 ? delay : 0),
    periodMs: scaledMs(timing, positive(probe.periodSeconds, PROBE_DEFAULTS.periodSeconds)),
    timeoutMs: positive(probe.timeoutSeconds, PROBE_DEFAULTS.timeoutSeconds) * 1000,
    failureThreshold: positive(probe.failureThreshold, PROBE_DEFAULTS.failureThreshold),
    // Kubernetes allows only 1 for liveness and startup probes.
    successThreshold: kind === 'readiness' ? positive(probe.successThreshold, PROBE_DEFAULTS.successThreshold) : 1,
  };
}

/** What one probe of one container says, and the run of equal outcomes behind it. */
export interface ProbeState {
  /** What the probe says now: the initial value until a threshold was reached, then the settled result. */
  success: boolean;
  /** A threshold was reached at least once (a startup probe that failed its way there differs from one not yet tried). */
  settled: boolean;
  /** The last outcome seen, and how many times in a row it came. */
  last?: boolean;
  run: number;
}

/** Before the first settled result, as the kubelet: not ready, not started, alive. */
export function initialProbeState(kind: ProbeKind, success = kind === 'liveness'): ProbeState {
  return { success, settled: false, run: 0 };
}

/** One more outcome: the result turns once successThreshold successes, or failureThreshold failures, came in a row. */
export function observeProbe(state: ProbeState, outcome: boolean, settings: Pick<ProbeSettings, 'failureThreshold' | 'successThreshold'>): ProbeState {
  const run = state.last === outcome ? state.run + 1 : 1;
  const threshold = outcome ? settings.successThreshold : settings.failureThreshold;
  const reached = run >= threshold;
  return { success: reached ? outcome : state.success, settled: state.settled || reached, last: outcome, run };
}
