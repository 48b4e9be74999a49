import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { jsonDocument } from '../../shared/recovering-read.js';
import { JsonStateFile, type SpacedWrites } from '../json-state-file.js';
import type { ContainerConfig, ContainerInfo, ContainerSession, ExecResult, LogLine, ProbeKind, Runtime, Sandbox, SandboxConfig, SessionOptions } from './runtime.js';
import { shellOf, simAttach, simExec, type SimStreamTarget } from './sim-shell/sim-container-streams.js';
import { scratchDir, SimFs } from './sim-shell/sim-fs.js';
import { simLogLines } from './sim-logs.js';
import { commandEnd } from './sim-command.js';
import { behaviourFrom, containerAt, nextStartOf, type SimContainerRecord } from './sim-behaviour.js';
import { releaseAddress, sandboxAddress, type SandboxNetworkOptions } from './sandbox-network.js';

export const SIM_RUNTIME_VERSION = '0.1.0';
export const SIM_STATE_FILE = 'sim-runtime.json';

export interface SimRuntimeOptions extends SandboxNetworkOptions {
  /** The edge's data directory; the runtime keeps its state in `sim-runtime.json` there. */
  dataDir: string;
  clock: Clock;
  /** Start delay when a pod has no `kedge.io/start-delay` (timing.containerStartMs). */
  defaultStartMs: number;
  /** A node reboot: every container from before is gone. A plain restart adopts them. */
  reboot?: boolean;
  /** Annotation durations are divided by it (--time-scale; default 1). */
  timeScale?: number;
  /** Told when the state file was damaged, and what the runtime fell back to. */
  logger?: Logger;
  /** Given: written atomically, not durably, and spaced (hollow edges: EdgeOptions.durableWrites), settled by the edge's stop. */
  spaced?: SpacedWrites;
}

interface SimState {
  sandboxes: (Sandbox & { annotations: Record<string, string> })[];
  containers: SimContainerRecord[];
}

const newId = (): string => randomBytes(16).toString('hex');

/**
 * The `sim` runtime: containers that exist only as records whose state is derived from the
 * clock and the pod's annotations (docs/runtime-sim.md). The records live in a JSON file in
 * the edge's data directory, so a restarted edge process finds its containers still there.
 */
export class SimRuntime implements Runtime {
  readonly name = 'sim';
  readonly version = SIM_RUNTIME_VERSION;

  private constructor(
    private readonly options: SimRuntimeOptions,
    private readonly file: JsonStateFile<SimState>,
    private readonly state: SimState,
  ) {}

  static async open(options: SimRuntimeOptions): Promise<SimRuntime> {
    const file = new JsonStateFile<SimState>(join(options.dataDir, SIM_STATE_FILE), {
      parse: jsonDocument({ sandboxes: 'array', containers: 'array' }),
      logger: options.logger ?? silentLogger,
      otherwise: 'starting with no containers; the pods are started again',
      spaced: options.spaced,
    });
    if (options.reboot) await Promise.all([file.remove(), SimFs.remove(join(options.dataDir, 'sim-fs'))]);
    const state = (await file.read()) ?? { sandboxes: [], containers: [] };
    return new SimRuntime(options, file, state);
  }

  async runSandbox(config: SandboxConfig): Promise<Sandbox> {
    const id = newId();
    const sandbox = {
      id,
      podUid: config.podUid,
      name: config.name,
      namespace: config.namespace,
      ...(await sandboxAddress(this.options, id, config)),
      createdAt: this.options.clock.now(),
      state: 'ready' as const,
      annotations: { ...(config.annotations ?? {}) },
    };
    this.state.sandboxes.push(sandbox);
    await this.save().catch(async (err: unknown) => {
      this.state.sandboxes = this.state.sandboxes.filter((s) => s !== sandbox);
      await releaseAddress(this.options, sandbox).catch(() => undefined); // else GC at the next start
      throw err;
    });
    return publicSandbox(sandbox);
  }

  async stopSandbox(sandboxId: string): Promise<void> {
    const sandbox = this.sandbox(sandboxId);
    const now = this.options.clock.now();
    for (const c of this.state.containers) if (c.sandboxId === sandboxId && c.stoppedAt === undefined) c.stoppedAt = now;
    sandbox.state = 'notready';
    await this.save();
  }

  async removeSandbox(sandboxId: string): Promise<void> {
    const sandbox = this.state.sandboxes.find((s) => s.id === sandboxId);
    this.state.sandboxes = this.state.sandboxes.filter((s) => s.id !== sandboxId);
    const inside = this.state.containers.filter((c) => c.sandboxId === sandboxId);
    this.state.containers = this.state.containers.filter((c) => c.sandboxId !== sandboxId);
    await this.save();
    await Promise.all(inside.map((c) => SimFs.remove(scratchDir(this.options.dataDir, c.id))));
    if (sandbox) await releaseAddress(this.options, sandbox);
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    const sandbox = this.sandbox(sandboxId);
    const annotations = { ...sandbox.annotations, ...(config.annotations ?? {}) };
    const record: SimContainerRecord = {
      id: newId(),
      sandboxId,
      podUid: sandbox.podUid,
      name: config.name,
      attempt: config.attempt,
      image: config.image ?? '',
      createdAt: this.options.clock.now(),
      behaviour: behaviourFrom(annotations, this.options.defaultStartMs, this.options.timeScale, commandEnd(config)),
      // What the simulated shell of exec sees.
      ...(config.mounts?.length ? { mounts: config.mounts } : {}),
      ...(config.env || config.workingDir || config.stdin || config.tty ? { shell: shellOf(config) } : {}),
    };
    this.state.containers.push(record);
    await this.save();
    return record.id;
  }

  async startContainer(containerId: string): Promise<void> {
    const record = this.container(containerId);
    if (record.startRequestedAt !== undefined) throw new KedgeError('Conflict', `container ${containerId} was already started`);
    record.startRequestedAt = this.options.clock.now();
    await this.save();
  }

  async stopContainer(containerId: string, _graceMs: number): Promise<void> {
    const record = this.container(containerId);
    // Simulated containers honour SIGTERM at once; an already exited one stays as it ended.
    if (record.stoppedAt === undefined && containerAt(record, this.options.clock.now()).state !== 'exited') {
      record.stoppedAt = this.options.clock.now();
      await this.save();
    }
  }

  async removeContainer(containerId: string): Promise<void> {
    this.state.containers = this.state.containers.filter((c) => c.id !== containerId);
    await this.save();
    await SimFs.remove(scratchDir(this.options.dataDir, containerId));
  }

  async listSandboxes(): Promise<Sandbox[]> {
    return this.state.sandboxes.map(publicSandbox);
  }

  async listContainers(): Promise<ContainerInfo[]> {
    const now = this.options.clock.now();
    return this.state.containers.map((c) => containerAt(c, now));
  }

  async logs(containerId: string): Promise<LogLine[]> {
    const now = this.options.clock.now();
    return simLogLines(containerAt(this.container(containerId), now), now);
  }

  /** Nothing runs, so nothing can fail: a running container answers every command with exit code 0. */
  async exec(containerId: string, _command: string[], _timeoutMs: number): Promise<ExecResult> {
    const now = this.options.clock.now();
    if (containerAt(this.container(containerId), now).state !== 'running') throw new KedgeError('Conflict', `container not running (${containerId})`);
    return { exitCode: 0, output: '', timedOut: false };
  }

  /** Runs `command` in the simulated shell (docs/runtime-sim.md): its mounts are its volumes, the rest a scratch directory. */
  async execStream(containerId: string, command: string[], options: SessionOptions): Promise<ContainerSession> {
    return simExec(this.streamTarget(containerId), command, options);
  }

  async attach(containerId: string, options: SessionOptions): Promise<ContainerSession> {
    return simAttach(this.streamTarget(containerId), options);
  }

  async portForward(sandboxId: string, port: number): Promise<never> {
    this.sandbox(sandboxId);
    throw new KedgeError('Invalid', `error forwarding port ${port} to pod ${sandboxId}, uid : the sim runtime's pods are simulated and listen on no port`);
  }

  /** Readiness as simulated (ready-after, ready-flap); liveness and startup succeed while it runs. */
  async simulatedProbe(containerId: string, kind: ProbeKind): Promise<boolean> {
    const info = containerAt(this.container(containerId), this.options.clock.now());
    if (info.state !== 'running') return false;
    return kind === 'readiness' ? info.ready === true : true;
  }

  nextStartAt(): number | undefined {
    const now = this.options.clock.now();
    let next: number | undefined;
    for (const c of this.state.containers) {
      const at = nextStartOf(c, now);
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    return next;
  }

  private sandbox(id: string): SimState['sandboxes'][number] {
    const found = this.state.sandboxes.find((s) => s.id === id);
    if (!found) throw new KedgeError('NotFound', `sandbox ${id} not found`);
    return found;
  }

  /** A running container, for a stream; NotFound otherwise (kube's words). */
  private streamTarget(id: string): SimStreamTarget {
    const record = this.container(id);
    if (containerAt(record, this.options.clock.now()).state !== 'running') throw new KedgeError('NotFound', `container not found ("${record.name}")`);
    const { dataDir, clock } = this.options;
    return { record, current: () => this.state.containers.find((c) => c.id === id), hostname: this.sandbox(record.sandboxId).name, dataDir, clock };
  }

  private container(id: string): SimContainerRecord {
    const found = this.state.containers.find((c) => c.id === id);
    if (!found) throw new KedgeError('NotFound', `container ${id} not found`);
    return found;
  }

  /**
   * Persists the state before the operation resolves (a started container survives a kill -9).
   * Operations issued together (one wave of a sync round) share one file write.
   */
  private save(): Promise<void> {
    return this.file.write(this.state);
  }
}

function publicSandbox(s: SimState['sandboxes'][number]): Sandbox {
  const { annotations: _annotations, ...rest } = s;
  return { ...rest };
}
