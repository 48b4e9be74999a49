import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Probe } from '../../shared/types.js';
import type { ProbeKind, Runtime } from '../runtime/runtime.js';
import { runProbeAction, type ProbeOutcome, type ProbeTarget } from './probe-actions.js';
import { initialProbeState, observeProbe, type ProbeSettings, type ProbeState } from './probe-state.js';

export interface ProbeWorkerDeps {
  runtime: Pick<Runtime, 'exec' | 'simulatedProbe'>;
  clock: Clock;
  logger: Logger;
}

export interface ProbeWorkerSpec {
  kind: ProbeKind;
  probe: Probe;
  settings: ProbeSettings;
  target: ProbeTarget;
  /** The container's name, for the log. */
  name: string;
  /** When the container started running: initialDelaySeconds counts from here. */
  startedAt: number;
  /** The settled result to begin with (default: the kubelet's initial value for the kind). */
  initial?: boolean;
  /** Whether the probe may run now (liveness and readiness wait for the startup probe). */
  mayRun: () => boolean;
  /** The settled result changed. */
  onResult: (worker: ProbeWorker) => void;
  /** A probe failed or errored: the kubelet's Unhealthy event, e.g. "Liveness probe failed: …". */
  onUnhealthy?: (message: string) => void;
}

const KIND_TITLE: Record<ProbeKind, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

/**
 * Runs one probe of one container on the clock: first at startedAt + initialDelay, then every
 * period after the previous one began, one at a time, until stopped.
 */
export class ProbeWorker {
  private state: ProbeState;
  private cancelTimer: Cancel | undefined;
  private busy = false;
  private stopped = false;
  /** The error the last probe ran into, logged once per run of them. */
  private lastError = '';
  private failedWith: string | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly deps: ProbeWorkerDeps,
    readonly spec: ProbeWorkerSpec,
  ) {
    this.state = initialProbeState(spec.kind, spec.initial);
  }

  get success(): boolean {
    return this.state.success;
  }

  /** Set while the result is a failure the probe settled on (not the initial value), e.g. "Liveness probe failed: HTTP probe failed with statuscode: 500". */
  get failureMessage(): string | undefined {
    return this.failedWith;
  }

  start(): void {
    this.schedule(this.firstAt() - this.deps.clock.now());
  }

  /** Probes at once (unless one is under way or the initial delay is not over). */
  runNow(): void {
    if (this.busy || this.stopped || this.deps.clock.now() < this.firstAt()) return;
    this.cancelTimer?.();
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.abort.abort();
  }

  private firstAt(): number {
    return this.spec.startedAt + this.spec.settings.initialDelayMs;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.cancelTimer = this.deps.clock.setTimer(Math.max(0, ms), () => void this.tick());
  }

  private async tick(): Promise<void> {
    this.cancelTimer = undefined;
    if (this.stopped) return;
    this.busy = true;
    const began = this.deps.clock.now();
    try {
      if (this.spec.mayRun()) this.record(await this.probeOnce());
    } finally {
      this.busy = false;
    }
    this.schedule(began + this.spec.settings.periodMs - this.deps.clock.now());
  }

  private async probeOnce(): Promise<ProbeOutcome> {
    const { runtime, clock } = this.deps;
    const { target, kind, probe, settings } = this.spec;
    try {
      const simulated = await runtime.simulatedProbe?.(target.containerId, kind);
      if (simulated !== undefined) return simulated ? { result: 'success', message: '' } : { result: 'failure', message: 'the simulated container failed the probe' };
    } catch (err) {
      return { result: 'error', message: (err as Error).message };
    }
    return runProbeAction(probe, target, { runtime, clock, timeoutMs: settings.timeoutMs, signal: this.abort.signal });
  }

  private record(outcome: ProbeOutcome): void {
    if (this.stopped) return;
    const { kind, name, target } = this.spec;
    if (outcome.result === 'error') {
      if (outcome.message !== this.lastError) {
        this.deps.logger.warn(`${kind} probe errored`, { container: name, containerId: target.containerId, error: outcome.message });
        this.spec.onUnhealthy?.(`${KIND_TITLE[kind]} probe errored: ${outcome.message}`);
      }
      this.lastError = outcome.message;
      return;
    }
    this.lastError = '';
    // As the kubelet: every failed probe is told (the correlator counts the repeats).
    if (outcome.result === 'failure') this.spec.onUnhealthy?.(`${KIND_TITLE[kind]} probe failed: ${outcome.message}`);
    const before = this.state;
    this.state = observeProbe(this.state, outcome.result === 'success', this.spec.settings);
    // A change: the result flipped, or a failure is now settled rather than the initial value (a startup probe that gave up).
    const failedNow = !this.state.success && this.state.settled && !before.settled;
    if (this.state.success === before.success && !failedNow) return;
    this.failedWith = this.state.success ? undefined : `${KIND_TITLE[kind]} probe failed: ${outcome.message}`;
    const fields = { container: name, containerId: target.containerId, ...(this.state.success ? {} : { reason: outcome.message }) };
    this.deps.logger.info(`${kind} probe ${this.state.success ? 'succeeded' : 'failed'}`, fields);
    this.spec.onResult(this);
  }
}
