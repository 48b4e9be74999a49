import { KedgeError } from '../../shared/errors.js';
import type { Duplex } from 'node:stream';
import type { ContainerConfig, ContainerInfo, ContainerProcess, ContainerSession, ExecResult, LogLine, ProbeKind, Runtime, Sandbox, SandboxConfig, SessionOptions } from './runtime.js';

/**
 * Several runtimes behind one seam, as the kubelet picks a CRI handler by RuntimeClass: a
 * sandbox goes to the runtime its `runtimeHandler` names (the default one when none), and
 * everything about a sandbox or container goes to the runtime that made it. Listed, each
 * sandbox says its handler and each container the runtime that runs it (its containerID's scheme).
 */
export class RuntimeByHandler implements Runtime {
  private readonly owners = new Map<string, Runtime>();

  constructor(
    private readonly runtimes: ReadonlyMap<string, Runtime>,
    private readonly defaultHandler: string,
  ) {
    if (!runtimes.has(defaultHandler)) throw new Error(`no runtime for the default handler ${defaultHandler}`);
  }

  get name(): string {
    return this.fallback.name;
  }

  get version(): string {
    return this.fallback.version;
  }

  async runSandbox(config: SandboxConfig): Promise<Sandbox> {
    const handler = config.runtimeHandler ?? this.defaultHandler;
    const runtime = this.runtimes.get(handler);
    if (!runtime) throw new KedgeError('Invalid', `no runtime handler "${handler}" on this node (known: ${[...this.runtimes.keys()].join(', ')})`);
    const sandbox = await runtime.runSandbox(config);
    this.owners.set(sandbox.id, runtime);
    return sandbox;
  }

  async stopSandbox(sandboxId: string): Promise<void> {
    await (await this.ownerOf(sandboxId)).stopSandbox(sandboxId);
  }

  async removeSandbox(sandboxId: string): Promise<void> {
    await (await this.ownerOf(sandboxId)).removeSandbox(sandboxId);
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    const runtime = await this.ownerOf(sandboxId);
    const id = await runtime.createContainer(sandboxId, config);
    this.owners.set(id, runtime);
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    await (await this.ownerOf(containerId)).startContainer(containerId);
  }

  async stopContainer(containerId: string, graceMs: number): Promise<void> {
    await (await this.ownerOf(containerId)).stopContainer(containerId, graceMs);
  }

  async removeContainer(containerId: string): Promise<void> {
    await (await this.ownerOf(containerId)).removeContainer(containerId);
  }

  async logs(containerId: string): Promise<LogLine[]> {
    return (await this.ownerOf(containerId)).logs(containerId);
  }

  async exec(containerId: string, command: string[], timeoutMs: number): Promise<ExecResult> {
    return (await this.ownerOf(containerId)).exec(containerId, command, timeoutMs);
  }

  async execStream(containerId: string, command: string[], options: SessionOptions): Promise<ContainerSession> {
    const runtime = await this.ownerOf(containerId);
    if (!runtime.execStream) throw cannot(runtime, 'exec');
    return runtime.execStream(containerId, command, options);
  }

  async attach(containerId: string, options: SessionOptions): Promise<ContainerSession> {
    const runtime = await this.ownerOf(containerId);
    if (!runtime.attach) throw cannot(runtime, 'attach');
    return runtime.attach(containerId, options);
  }

  async portForward(sandboxId: string, port: number): Promise<Duplex> {
    const runtime = await this.ownerOf(sandboxId);
    if (!runtime.portForward) throw cannot(runtime, 'port-forward');
    return runtime.portForward(sandboxId, port);
  }

  /** The owning runtime's simulated answer; undefined when its probes are real. */
  async simulatedProbe(containerId: string, kind: ProbeKind): Promise<boolean | undefined> {
    return (await this.ownerOf(containerId)).simulatedProbe?.(containerId, kind);
  }

  /** The real processes of a container, from a runtime that runs them (none from the others). */
  async processOf(containerId: string): Promise<ContainerProcess | undefined> {
    return (await this.ownerOf(containerId)).processOf?.(containerId);
  }

  async listSandboxes(): Promise<Sandbox[]> {
    return this.listAll(async (r, handler) => (await r.listSandboxes()).map((s) => (handler === this.defaultHandler ? s : { ...s, runtimeHandler: handler })));
  }

  async listContainers(): Promise<ContainerInfo[]> {
    return this.listAll(async (r) => (await r.listContainers()).map((c) => ({ ...c, runtime: r.name })));
  }

  nextStartAt(): number | undefined {
    const times = [...this.runtimes.values()].map((r) => r.nextStartAt?.()).filter((t): t is number => t !== undefined);
    return times.length ? Math.min(...times) : undefined;
  }

  private get fallback(): Runtime {
    return this.runtimes.get(this.defaultHandler)!;
  }

  private async listAll<T extends { id: string }>(list: (r: Runtime, handler: string) => Promise<T[]>): Promise<T[]> {
    const out: T[] = [];
    for (const [handler, runtime] of this.runtimes) {
      for (const item of await list(runtime, handler)) {
        this.owners.set(item.id, runtime);
        out.push(item);
      }
    }
    return out;
  }

  /** The runtime that made `id`; after an edge restart, found by listing them all once. */
  private async ownerOf(id: string): Promise<Runtime> {
    if (!this.owners.has(id)) {
      await this.listSandboxes();
      await this.listContainers();
    }
    const owner = this.owners.get(id);
    if (!owner) throw new KedgeError('NotFound', `no sandbox or container ${id}`);
    return owner;
  }
}

const cannot = (runtime: Runtime, what: string): KedgeError => new KedgeError('Invalid', `the ${runtime.name} runtime cannot ${what}`);
