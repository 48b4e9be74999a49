import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Clock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { noCrash, type CrashPoint, type CrashStep } from '../crash-point.js';
import type { JsonStateFile } from '../json-state-file.js';
import { execCommand } from './process-exec.js';
import { readLogLines } from './process-logs.js';
import { signalGroup } from './proc-stat.js';
import { openState, stopGroup, unstart } from './process-reconcile.js';
import { infoOf, newRecord, shimOf, type ProcessRecord, type ProcessState } from './process-state.js';
import { containerEnv, containerPaths, removeContainerFiles, spawnShim } from './process-spawn.js';
import { containerDir, makeContainerRoot, removeContainerDir } from './process-root.js';
import { ShimWatch } from './shim-watch.js';
import type { ContainerConfig, ContainerInfo, ContainerProcess, ContainerSession, ExecResult, LogLine, Runtime, Sandbox, SandboxConfig, SessionOptions } from './runtime.js';
import { findPython } from './session/find-python.js';
import { dialSandbox } from './session/port-forward.js';
import { attachToShim } from './session/process-attach.js';
import { startSession } from './session/process-session.js';
import { releaseAddress, sandboxAddress, type SandboxNetworkOptions } from './sandbox-network.js';

export const PROCESS_RUNTIME_VERSION = '0.1.0';
export { PROCESS_STATE_FILE } from './process-state.js';
export const DEFAULT_MAX_LOG_BYTES = 10 * 1024 * 1024;

/** Sandboxes get their address from the network plugin (a loopback address the process can bind, on Linux); hostNetwork ones the node's, `hostIp`. */
export interface ProcessRuntimeOptions extends SandboxNetworkOptions {
  dataDir: string;
  clock: Clock;
  /** A node reboot: every process from before is killed and forgotten. A plain restart adopts them. */
  reboot?: boolean;
  maxLogBytes?: number;
  /** Says what it found to put right after a crash of the edge, and when the state file was damaged and what it fell back to. */
  logger?: Logger;
  /** Fault injection between the steps of a start (durability tests); none by default. */
  crashPoint?: CrashPoint;
  /** The python3 that exec sessions run under (session-helper.ts); false: none. Default: python3 on the PATH, if any. */
  python?: string | false;
}

const newId = (): string => randomBytes(16).toString('hex');

/**
 * The `process` runtime: each container is a real process (its image is ignored) under a log
 * shim, in its own process group, outliving the edge process. A later instance over the same
 * data directory adopts the processes that still run (same pid, start time and boot), and stops
 * any that its records do not account for (process-reconcile.ts).
 */
export class ProcessRuntime implements Runtime {
  readonly name = 'process';
  readonly version = PROCESS_RUNTIME_VERSION;
  private readonly shims: ShimWatch;
  private python?: Promise<string | undefined>;

  private constructor(
    private readonly options: ProcessRuntimeOptions,
    private readonly file: JsonStateFile<ProcessState>,
    private readonly state: ProcessState,
  ) {
    this.shims = new ShimWatch({ dataDir: options.dataDir, clock: options.clock, save: () => this.save() });
  }

  static async open(options: ProcessRuntimeOptions): Promise<ProcessRuntime> {
    const { file, state } = await openState(options.dataDir, options.reboot ?? false, options.logger ?? silentLogger);
    return new ProcessRuntime(options, file, state);
  }

  async runSandbox(config: SandboxConfig): Promise<Sandbox> {
    const { podUid, name, namespace } = config;
    const id = newId();
    const sandbox: Sandbox = { id, podUid, name, namespace, ...(await sandboxAddress(this.options, id, config)), createdAt: this.options.clock.now(), state: 'ready' };
    this.state.sandboxes.push(sandbox);
    await this.save().catch(async (err: unknown) => {
      this.state.sandboxes = this.state.sandboxes.filter((s) => s !== sandbox);
      await releaseAddress(this.options, sandbox).catch(() => undefined); // else GC at the next start
      throw err;
    });
    return { ...sandbox };
  }

  async stopSandbox(sandboxId: string): Promise<void> {
    const sandbox = this.sandbox(sandboxId);
    const inside = this.state.containers.filter((c) => c.sandboxId === sandboxId);
    await Promise.all(inside.map((c) => this.stopContainer(c.id, 0)));
    sandbox.state = 'notready';
    await this.save();
  }

  async removeSandbox(sandboxId: string): Promise<void> {
    const inside = this.state.containers.filter((c) => c.sandboxId === sandboxId);
    await Promise.all(inside.map((c) => this.removeContainer(c.id)));
    const sandbox = this.state.sandboxes.find((s) => s.id === sandboxId);
    this.state.sandboxes = this.state.sandboxes.filter((s) => s.id !== sandboxId);
    await this.save();
    if (sandbox) await releaseAddress(this.options, sandbox);
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    const sandbox = this.sandbox(sandboxId);
    const id = newId();
    const dir = config.mounts?.length ? containerDir(this.options.dataDir, sandbox.podUid, config.name, id) : undefined;
    const rooted = dir ? { ...config, ...(await makeContainerRoot(dir, config)) } : config;
    const record = newRecord(id, sandbox, rooted, this.options.clock.now(), dir);
    this.state.containers.push(record);
    await this.save();
    return record.id;
  }

  async startContainer(containerId: string): Promise<void> {
    const record = this.container(containerId);
    if (record.startedAt !== undefined) throw new KedgeError('Conflict', `container ${containerId} was already started`);
    record.startedAt = this.options.clock.now();
    const { command, args = [], env, workingDir } = record.spec;
    if (!command?.length) return this.shims.finish(record, { exitCode: 127, reason: 'ContainerCannotRun' });
    const { dataDir, maxLogBytes = DEFAULT_MAX_LOG_BYTES } = this.options;
    const stdin = record.spec.stdin;
    const shim = await spawnShim({ dataDir, id: record.id, command, args, env: containerEnv(env), workingDir, maxLogBytes, stdin });
    if (!shim) return this.shims.finish(record, { exitCode: 128, reason: 'ContainerCannotRun' });
    this.crashPoint('shim-spawned');
    record.pid = shim.pid;
    record.startTime = shim.startTime;
    record.bootId = shim.bootId;
    this.shims.follow(record, shim.child);
    // Written down before it is let go: whatever runs, a later edge process knows of it.
    await this.save().catch((err: unknown) => {
      // Not written down, so never let go: it runs nothing, and the container is `created` again.
      unstart(record);
      shim.child.kill('SIGKILL');
      throw err;
    });
    this.crashPoint('shim-recorded');
    const up = shim.release();
    this.crashPoint('shim-released');
    await up;
  }

  async stopContainer(containerId: string, graceMs: number): Promise<void> {
    const record = this.container(containerId);
    if (!(await this.shims.isRunning(record))) return;
    const pid = record.pid!;
    signalGroup(pid, graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
    const cancel = this.options.clock.setTimer(graceMs, () => signalGroup(pid, 'SIGKILL'));
    try {
      await this.shims.exitOf(record);
    } finally {
      cancel();
    }
  }

  async removeContainer(containerId: string): Promise<void> {
    const record = this.state.containers.find((c) => c.id === containerId);
    if (!record) return;
    const shim = shimOf(record);
    if (shim) await stopGroup(shim); // and what it left running
    this.shims.forget(containerId);
    this.state.containers = this.state.containers.filter((c) => c.id !== containerId);
    await removeContainerFiles(this.options.dataDir, containerId);
    if (record.spec.dir) await removeContainerDir(record.spec.dir);
    await this.save();
  }

  async listSandboxes(): Promise<Sandbox[]> {
    return this.state.sandboxes.map((s) => ({ ...s }));
  }

  async listContainers(): Promise<ContainerInfo[]> {
    await Promise.all(this.state.containers.map((c) => this.shims.isRunning(c)));
    return this.state.containers.map(infoOf);
  }

  async logs(containerId: string): Promise<LogLine[]> {
    this.container(containerId);
    return readLogLines(containerPaths(this.options.dataDir, containerId).log);
  }

  /** Runs `command` with the container's env and working directory; Conflict unless the container runs. */
  async exec(containerId: string, command: string[], timeoutMs: number): Promise<ExecResult> {
    const record = this.container(containerId);
    if (!(await this.shims.isRunning(record))) throw new KedgeError('Conflict', `container not running (${containerId})`);
    const { env, workingDir } = record.spec;
    return execCommand({ command, env: containerEnv(env), workingDir, timeoutMs, clock: this.options.clock });
  }

  /** Starts `command` for a stream beside the container's process, with its env and working directory. */
  async execStream(containerId: string, command: string[], options: SessionOptions): Promise<ContainerSession> {
    const { env, workingDir } = (await this.runningContainer(containerId)).spec;
    this.python ??= this.options.python === false ? Promise.resolve(undefined) : Promise.resolve(this.options.python || findPython(process.env.PATH));
    return startSession({ command, env: containerEnv(env), workingDir, options, python: await this.python });
  }

  /** The container's output from now on, and its stdin when it was created with one. */
  async attach(containerId: string, options: SessionOptions): Promise<ContainerSession> {
    const record = await this.runningContainer(containerId);
    const containerExit = this.shims.exitOf(record).then(() => record.exitCode ?? 0);
    const paths = containerPaths(this.options.dataDir, containerId);
    return attachToShim({ name: record.name, paths, hasStdin: record.spec.stdin === true, clock: this.options.clock, options, containerExit });
  }

  async portForward(sandboxId: string, port: number): Promise<Socket> {
    return dialSandbox(this.sandbox(sandboxId), port);
  }

  /** The running container's process group: its shim leads it, the container's processes are in it. */
  async processOf(containerId: string): Promise<ContainerProcess | undefined> {
    const record = this.container(containerId);
    return (await this.shims.isRunning(record)) ? { group: record.pid! } : undefined;
  }

  /** Stops listening to its children, as a dying edge process would: a later instance takes over. */
  close(): void {
    this.shims.close();
  }

  private async runningContainer(id: string): Promise<ProcessRecord> {
    const record = this.container(id);
    if (!(await this.shims.isRunning(record))) throw new KedgeError('NotFound', `container not found ("${record.name}")`);
    return record;
  }

  private sandbox(id: string): Sandbox {
    const found = this.state.sandboxes.find((s) => s.id === id);
    if (!found) throw new KedgeError('NotFound', `sandbox ${id} not found`);
    return found;
  }

  private container(id: string): ProcessRecord {
    const found = this.state.containers.find((c) => c.id === id);
    if (!found) throw new KedgeError('NotFound', `container ${id} not found`);
    return found;
  }

  private save(): Promise<void> {
    return this.file.write(this.state);
  }

  private crashPoint(step: CrashStep): void {
    (this.options.crashPoint ?? noCrash)(step);
  }
}
