import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { Container, ContainerStatus, Pod } from '../../shared/types.js';
import { containerRef, type EventRecorder } from '../events/event-types.js';
import { REASONS } from '../events/kubelet-events.js';
import type { ContainerInfo, ProbeKind, Runtime, Sandbox } from '../runtime/runtime.js';
import type { ContainerProbeStatus, ProbeStatuses } from './probe-status.js';
import { probeSettings } from './probe-state.js';
import { ProbeWorker } from './probe-worker.js';

export interface ProberDeps {
  runtime: Pick<Runtime, 'exec' | 'simulatedProbe'>;
  clock: Clock;
  timing: Pick<Timing, 'timeScale'>;
  logger: Logger;
  /** A probe's result changed: edged syncs at once. */
  onChange: () => void;
  /** Where Unhealthy events go; none: nowhere. */
  events?: EventRecorder;
}

/** What the runtime holds (edged's ActualPods). */
export interface RuntimeView {
  sandboxes: Sandbox[];
  containers: ContainerInfo[];
}

type Workers = Map<ProbeKind, ProbeWorker>;

const PROBE_FIELD: Record<ProbeKind, 'startupProbe' | 'livenessProbe' | 'readinessProbe'> = { startup: 'startupProbe', liveness: 'livenessProbe', readiness: 'readinessProbe' };
// Startup first: the others wait for it.
const KINDS: ProbeKind[] = ['startup', 'liveness', 'readiness'];

/**
 * The kubelet's prober: for every running app container with probes, one worker per probe on
 * the clock. Edged tells it what runs after each sync (`update`) and reads `statuses()`; a
 * changed result calls `onChange`. A container's workers live as long as it runs.
 */
export class Prober {
  private readonly workers = new Map<string, Workers>();
  private stopped = false;

  constructor(private readonly deps: ProberDeps) {}

  /** Starts workers for newly running containers of `pods` and drops those of containers gone or exited. */
  update(pods: Pod[], actual: RuntimeView): void {
    if (this.stopped) return;
    const podOf = new Map(pods.map((p) => [p.metadata.uid ?? '', p]));
    const sandboxOf = new Map(actual.sandboxes.map((s) => [s.id, s]));
    const probed = new Set<string>();
    for (const c of actual.containers) {
      const pod = podOf.get(c.podUid);
      const spec = pod?.spec.containers.find((s) => s.name === c.name);
      const sandbox = sandboxOf.get(c.sandboxId);
      if (c.state !== 'running' || !pod || !spec || !sandbox || !KINDS.some((k) => spec[PROBE_FIELD[k]])) continue;
      probed.add(c.id);
      if (!this.workers.has(c.id)) this.workers.set(c.id, this.startWorkers(pod, spec, c, sandbox));
    }
    for (const [id, workers] of this.workers) {
      if (probed.has(id)) continue;
      for (const w of workers.values()) w.stop();
      this.workers.delete(id);
    }
  }

  /** What the probes say now, by container id (only containers with probes). */
  statuses(): ProbeStatuses {
    const out = new Map<string, ContainerProbeStatus>();
    for (const [id, workers] of this.workers) {
      const status: ContainerProbeStatus = {};
      const [startup, liveness, readiness] = KINDS.map((k) => workers.get(k));
      if (readiness) status.ready = readiness.success;
      if (startup) status.started = startup.success;
      const unhealthy = startup?.failureMessage ?? liveness?.failureMessage;
      if (unhealthy) status.unhealthy = unhealthy;
      out.set(id, status);
    }
    return out;
  }

  stop(): void {
    this.stopped = true;
    for (const workers of this.workers.values()) for (const w of workers.values()) w.stop();
    this.workers.clear();
  }

  private startWorkers(pod: Pod, spec: Container, container: ContainerInfo, sandbox: Sandbox): Workers {
    const workers: Workers = new Map();
    const reported = reportedStatus(pod, container);
    const target = { containerId: container.id, podIP: sandbox.ip, ports: spec.ports ?? [] };
    for (const kind of KINDS) {
      const probe = spec[PROBE_FIELD[kind]];
      if (!probe) continue;
      const worker = new ProbeWorker(this.deps, {
        kind,
        probe,
        settings: probeSettings(probe, kind, this.deps.timing),
        target,
        name: spec.name,
        startedAt: container.startedAt ?? container.createdAt,
        // An adopted container (after an edge restart) keeps what it last reported until probed again.
        ...(kind === 'readiness' && reported?.ready ? { initial: true } : {}),
        ...(kind === 'startup' && reported?.started ? { initial: true } : {}),
        mayRun: kind === 'startup' ? () => true : () => workers.get('startup')?.success ?? true,
        onResult: (w) => this.onResult(workers, w),
        onUnhealthy: (message) => this.deps.events?.record(containerRef(pod, spec.name), 'Warning', REASONS.unhealthy, message),
      });
      workers.set(kind, worker);
    }
    for (const w of workers.values()) if (!(w.spec.kind === 'startup' && w.success)) w.start();
    return workers;
  }

  private onResult(workers: Workers, worker: ProbeWorker): void {
    const { kind } = worker.spec;
    if (kind === 'startup' && worker.success) {
      // Started: the startup probe is done, readiness is asked at once.
      worker.stop();
      workers.get('readiness')?.runNow();
    }
    // A container that failed its liveness or startup probe is probed no more: edged kills it.
    if (kind !== 'readiness' && !worker.success) worker.stop();
    if (!this.stopped) this.deps.onChange();
  }
}

/** The status edged last reported for this very container (same container ID), if any. */
function reportedStatus(pod: Pod, container: ContainerInfo): ContainerStatus | undefined {
  return pod.status?.containerStatuses?.find((s) => s.name === container.name && s.containerID?.endsWith(`://${container.id}`));
}
