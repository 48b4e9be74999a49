import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Clock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import type { EdgeComponent } from '../network/edge-component.js';
import type { ContainerConfig, ContainerInfo, ContainerSession, ExecResult, LogLine, Runtime, Sandbox, SandboxConfig, SessionOptions } from './runtime.js';
import { dialSandbox } from './session/port-forward.js';

export const AGENT_RUNTIME_NAME = 'kedge-agent';
export const AGENT_RUNTIME_VERSION = '0.1.0';
/** The components an edge builds in, by the names its kube-system pods' images give them (`kedge/<name>`). */
export const BUILT_IN_COMPONENTS: ReadonlySet<string> = new Set(['kube-proxy', 'kedge-cni']);

export interface AgentRuntimeOptions {
  /** The edge's built-in components, looked up by name each time (they may be made after the runtime). */
  components: () => readonly EdgeComponent[];
  clock: Clock;
  /** These pods are host-network pods: every sandbox gets the node's address. */
  hostIp: string;
  /** A component's recent log lines, oldest first; undefined when nothing keeps them. */
  logs?: (component: string) => LogLine[] | undefined;
}

interface AgentContainer extends Pick<ContainerInfo, 'id' | 'sandboxId' | 'podUid' | 'name' | 'attempt' | 'image' | 'createdAt' | 'startedAt' | 'finishedAt'> {
  /** The built-in component its image names. */
  component: string;
  startRequested: boolean;
}

const newId = (): string => randomBytes(16).toString('hex');

/** `kedge/kube-proxy` (a tag or digest aside) names the component `kube-proxy`; any other image names what it names. */
export function componentOfImage(image: string): string {
  const bare = image.replace(/@.*$/, '').replace(/:[^/]*$/, '');
  return bare.startsWith('kedge/') ? bare.slice('kedge/'.length) : bare;
}

/**
 * The `kedge-agent` runtime: a container whose image is `kedge/<name>` stands for the edge's
 * built-in component `<name>` (kube-proxy, kedge-cni), which runs inside the edge process. It
 * runs while the edge runs and is ready while the component runs. Nothing outlives the edge
 * process, so the records live in memory: after a restart of the edge its pods start again,
 * as their components did.
 */
export class AgentRuntime implements Runtime {
  readonly name = AGENT_RUNTIME_NAME;
  readonly version = AGENT_RUNTIME_VERSION;
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly containers = new Map<string, AgentContainer>();

  constructor(private readonly options: AgentRuntimeOptions) {}

  /** Its containers are the edge's own components: every sandbox shares the node's network, and the network plugin is never asked. */
  async runSandbox(config: SandboxConfig): Promise<Sandbox> {
    const { podUid, name, namespace } = config;
    const sandbox: Sandbox = { id: newId(), podUid, name, namespace, ip: this.options.hostIp, createdAt: this.options.clock.now(), state: 'ready', hostNetwork: true };
    this.sandboxes.set(sandbox.id, sandbox);
    return { ...sandbox };
  }

  async stopSandbox(sandboxId: string): Promise<void> {
    const sandbox = this.sandbox(sandboxId);
    for (const c of this.containers.values()) if (c.sandboxId === sandboxId) this.stop(c);
    sandbox.state = 'notready';
  }

  async removeSandbox(sandboxId: string): Promise<void> {
    for (const c of this.containers.values()) if (c.sandboxId === sandboxId) this.containers.delete(c.id);
    this.sandboxes.delete(sandboxId);
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    const sandbox = this.sandbox(sandboxId);
    const image = config.image ?? '';
    const record: AgentContainer = {
      id: newId(), sandboxId, podUid: sandbox.podUid, name: config.name, attempt: config.attempt, image,
      component: componentOfImage(image), createdAt: this.options.clock.now(), startRequested: false,
    };
    this.containers.set(record.id, record);
    return record.id;
  }

  /** Runs at once when the component exists; otherwise it waits for good, as an image that cannot be pulled. */
  async startContainer(containerId: string): Promise<void> {
    const record = this.container(containerId);
    if (record.startRequested) throw new KedgeError('Conflict', `container ${containerId} was already started`);
    record.startRequested = true;
    if (this.component(record)) record.startedAt = this.options.clock.now();
  }

  async stopContainer(containerId: string, _graceMs: number): Promise<void> {
    this.stop(this.container(containerId));
  }

  async removeContainer(containerId: string): Promise<void> {
    this.containers.delete(containerId);
  }

  async listSandboxes(): Promise<Sandbox[]> {
    return [...this.sandboxes.values()].map((s) => ({ ...s }));
  }

  async listContainers(): Promise<ContainerInfo[]> {
    return [...this.containers.values()].map((c) => this.infoOf(c));
  }

  /** The component's recent log lines, or one line saying where its log is. */
  async logs(containerId: string): Promise<LogLine[]> {
    const record = this.container(containerId);
    if (record.startedAt === undefined) return [];
    const kept = this.options.logs?.(record.component);
    return kept ?? [{ time: record.startedAt, text: `${record.component} runs inside the edge process: its log is the edge's log` }];
  }

  async exec(containerId: string, _command: string[], _timeoutMs: number): Promise<ExecResult> {
    throw this.noContainer(containerId, 'exec in');
  }

  async execStream(containerId: string, _command: string[], _options: SessionOptions): Promise<ContainerSession> {
    throw this.noContainer(containerId, 'exec in');
  }

  async attach(containerId: string, _options: SessionOptions): Promise<ContainerSession> {
    throw this.noContainer(containerId, 'attach to');
  }

  /** Its pods are host-network pods: a port on the node's address, where the component listens. */
  async portForward(sandboxId: string, port: number): Promise<Socket> {
    return dialSandbox(this.sandbox(sandboxId), port);
  }

  private noContainer(containerId: string, what: string): KedgeError {
    const record = this.container(containerId);
    return new KedgeError('Invalid', `cannot ${what} ${record.name}: the built-in component ${record.component} runs inside the edge process, not in a container of its own`);
  }

  private infoOf(c: AgentContainer): ContainerInfo {
    const { component: _component, startRequested: _requested, ...info } = c;
    if (c.finishedAt !== undefined) return { ...info, state: 'exited', exitCode: 0, reason: 'Completed' };
    if (c.startedAt !== undefined) return { ...info, state: 'running', ready: this.component(c)?.running() ?? false };
    if (!c.startRequested) return { ...info, state: 'created' };
    return { ...info, state: 'created', starting: true, waiting: { reason: 'ErrImagePull', message: this.unknownComponent(c.component) } };
  }

  private unknownComponent(name: string): string {
    const known = this.options.components().map((c) => c.name);
    return `no built-in component "${name}" on this edge (${known.length ? `it has ${known.join(', ')}` : 'it has none'})`;
  }

  private stop(c: AgentContainer): void {
    if (c.finishedAt === undefined) c.finishedAt = this.options.clock.now();
  }

  private component(c: AgentContainer): EdgeComponent | undefined {
    return this.options.components().find((x) => x.name === c.component);
  }

  private sandbox(id: string): Sandbox {
    const found = this.sandboxes.get(id);
    if (!found) throw new KedgeError('NotFound', `sandbox ${id} not found`);
    return found;
  }

  private container(id: string): AgentContainer {
    const found = this.containers.get(id);
    if (!found) throw new KedgeError('NotFound', `container ${id} not found`);
    return found;
  }
}
