import type { Duplex, Readable, Writable } from 'node:stream';

/**
 * The container runtime seam, shaped like Kubernetes' CRI: a pod sandbox holds containers;
 * edged creates, starts, stops and removes them and reads their state back. Runtimes keep
 * their own record of what exists, so a restarted edge can adopt what is still running.
 */
export interface SandboxConfig {
  podUid: string;
  name: string;
  namespace: string;
  /** The pod's annotations, which steer simulated behaviour. */
  annotations?: Record<string, string>;
  /** Which runtime runs the pod (its RuntimeClass's handler: "sim" or "process"). */
  runtimeHandler?: string;
  /** The pod's spec.hostNetwork: the sandbox gets the node's address, and the network plugin is not called. */
  hostNetwork?: boolean;
}

export interface Sandbox {
  id: string;
  podUid: string;
  name: string;
  namespace: string;
  /** From the network plugin (the node's address for a hostNetwork sandbox). */
  ip: string;
  hostNetwork?: boolean;
  createdAt: number;
  state: 'ready' | 'notready';
  /** The RuntimeClass handler it was run with (set by RuntimeByHandler); none: the node's default. */
  runtimeHandler?: string;
}

/** A volume mounted into a container, as CRI's Mount: `hostPath` (the volume, or the path in it a subPath names) at `containerPath`. */
export interface Mount {
  /** The volume's name in the pod. */
  name: string;
  containerPath: string;
  hostPath: string;
  readOnly: boolean;
  subPath?: string;
}

export interface ContainerConfig {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: Record<string, string>;
  workingDir?: string;
  /** The container keeps a stdin open, or has a tty: a shell or REPL waits on it instead of ending. */
  stdin?: boolean;
  tty?: boolean;
  /** 0 for the first run of this container in this pod, then 1, 2, ... */
  attempt: number;
  annotations?: Record<string, string>;
  mounts?: Mount[];
}

/**
 * As CRI says: `created` is made but never started. A container an edge was killed between
 * creating and starting stays `created` for good, so edged replaces it (plan-containers.ts).
 */
export type ContainerStateName = 'created' | 'running' | 'exited' | 'unknown';

export interface ContainerInfo {
  id: string;
  sandboxId: string;
  podUid: string;
  name: string;
  attempt: number;
  image: string;
  state: ContainerStateName;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  exitCode?: number;
  reason?: string;
  /** Readiness as the runtime sees it (simulated containers may report not ready). */
  ready?: boolean;
  /** Started but not running yet (a simulated start delay): `created`, but on its way. */
  starting?: boolean;
  /** The mounts it was created with. */
  mounts?: Mount[];
  /** The name of the runtime that runs it (set by RuntimeByHandler): its containerID is `<runtime>://<id>`. */
  runtime?: string;
  /** Why a container that was asked to start cannot (an image that cannot be pulled): its waiting reason and message. */
  waiting?: { reason: string; message: string };
}

/** The real processes behind a container: its process group (led by its shim, which is not the container). */
export interface ContainerProcess {
  group: number;
}

/** One line of a container's output, with when it was written (ms since the epoch). */
export interface LogLine {
  time: number;
  text: string;
}

/** What a command run inside a container (exec) ended with. */
export interface ExecResult {
  exitCode: number;
  /** stdout and stderr together, cut to a few KiB. */
  output: string;
  /** It ran past its timeout and was killed. */
  timedOut: boolean;
}

/** What a stream asks of a process in a container (exec, attach): which standard streams, and a terminal. */
export interface SessionOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/**
 * A process a stream talks to (CRI's Exec and Attach): its standard streams as Node streams.
 * Reading `stdout` only as fast as the client takes it slows the process down (a pipe's
 * backpressure) instead of buffering its output.
 */
export interface ContainerSession {
  /** Present when stdin was asked for; ending it is the end of file. */
  stdin?: Writable;
  /** With a tty, the terminal's output (stderr goes there too). */
  stdout?: Readable;
  /** Absent with a tty. */
  stderr?: Readable;
  /** The terminal's new size (with a tty). */
  resize?(width: number, height: number): void;
  /** Settles with the exit code once the process has exited and its output has been read. */
  exited: Promise<number>;
  /** Ends it at once (the client went away, the link was cut): kills what it started. Idempotent. */
  kill(): void;
}

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

export interface Runtime {
  /** Name and version, e.g. { name: "sim", version: "0.1.0" } → nodeInfo.containerRuntimeVersion "sim://0.1.0". */
  readonly name: string;
  readonly version: string;
  runSandbox(config: SandboxConfig): Promise<Sandbox>;
  stopSandbox(sandboxId: string): Promise<void>;
  removeSandbox(sandboxId: string): Promise<void>;
  createContainer(sandboxId: string, config: ContainerConfig): Promise<string>;
  startContainer(containerId: string): Promise<void>;
  /** SIGTERM-like stop, then forced after `graceMs`. */
  stopContainer(containerId: string, graceMs: number): Promise<void>;
  removeContainer(containerId: string): Promise<void>;
  listSandboxes(): Promise<Sandbox[]>;
  listContainers(): Promise<ContainerInfo[]>;
  /** What the container wrote, oldest first; NotFound for an unknown id. */
  logs(containerId: string): Promise<LogLine[]>;
  /** Runs `command` inside a running container (CRI's ExecSync): its env and working directory, killed after `timeoutMs`. */
  exec(containerId: string, command: string[], timeoutMs: number): Promise<ExecResult>;
  /**
   * For a runtime whose containers nothing can reach (sim): the outcome of a probe as the
   * simulated container would answer it. Undefined from a runtime whose probes are real.
   */
  simulatedProbe?(containerId: string, kind: ProbeKind): Promise<boolean | undefined>;
  /**
   * When a starting container is next expected to come up (run, or fail at once) or become
   * ready, if the runtime can tell: edged looks again right then instead of polling for it.
   */
  nextStartAt?(): number | undefined;
  /** Starts `command` in a running container for a stream (CRI's Exec): its env and working directory. NotFound for a container that does not run. */
  execStream?(containerId: string, command: string[], options: SessionOptions): Promise<ContainerSession>;
  /** Attaches to a running container's own process (CRI's Attach); `exited` settles when the container exits or `kill` detaches. */
  attach?(containerId: string, options: SessionOptions): Promise<ContainerSession>;
  /** Connects to `port` in the pod's network (CRI's PortForward); rejects with the reason it cannot (a refused port). */
  portForward?(sandboxId: string, port: number): Promise<Duplex>;
  /** For a runtime whose containers are real processes: the running container's process group; undefined when it does not run. */
  processOf?(containerId: string): Promise<ContainerProcess | undefined>;
}

/** The container id as containerStatuses[].containerID says it: `<runtime>://<id>`, the runtime named as the one that runs it. */
export function containerIdOf(runtimeName: string, c: Pick<ContainerInfo, 'id' | 'runtime'>): string {
  return `${c.runtime ?? runtimeName}://${c.id}`;
}
