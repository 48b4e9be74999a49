import { KedgeError } from '../../shared/errors.js';
import { imageIdOf } from '../edged/pod-status.js';
import type { ContainerInfo, Mount, Sandbox } from '../runtime/runtime.js';

/*
 * The runtime's sandboxes and containers as CRI shapes them (runtime/v1 api.proto, in its JSON
 * form: int64 times as strings of nanoseconds, enums by name), for crictl's columns.
 */

type Labels = Record<string, string>;

export interface CriPodSandbox {
  id: string;
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  createdAt: string;
  labels: Labels;
  annotations: Labels;
  /** The RuntimeClass handler; "" for the node's default. */
  runtimeHandler: string;
}

export type CriContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export interface CriContainer {
  id: string;
  podSandboxId: string;
  metadata: { name: string; attempt: number };
  image: { image: string };
  imageRef: string;
  state: CriContainerState;
  createdAt: string;
  labels: Labels;
  annotations: Labels;
}

export interface CriMount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
  propagation: 'PROPAGATION_PRIVATE';
}

/** ContainerStatusResponse: crictl inspect's `status` and `info`. */
export interface CriContainerStatus {
  status: CriContainer & { startedAt: string; finishedAt: string; exitCode: number; reason: string; message: string; mounts: CriMount[] };
  info: { sandboxID: string; runtime: string; pid?: number };
}

/** ns as CRI's int64 in JSON: a string, exact (ms * 1e6 is past 2^53); 0 for a time not reached. */
export const nanos = (ms: number | undefined): string => (ms === undefined ? '0' : `${Math.round(ms)}000000`);

const STATES: Record<ContainerInfo['state'], CriContainerState> = { created: 'CONTAINER_CREATED', running: 'CONTAINER_RUNNING', exited: 'CONTAINER_EXITED', unknown: 'CONTAINER_UNKNOWN' };

function podLabels(s: Sandbox | undefined): Labels {
  return s ? { 'io.kubernetes.pod.name': s.name, 'io.kubernetes.pod.namespace': s.namespace, 'io.kubernetes.pod.uid': s.podUid } : {};
}

export function criSandbox(s: Sandbox): CriPodSandbox {
  return {
    id: s.id,
    metadata: { name: s.name, uid: s.podUid, namespace: s.namespace, attempt: 0 },
    state: s.state === 'ready' ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
    createdAt: nanos(s.createdAt),
    labels: podLabels(s),
    annotations: {},
    runtimeHandler: s.runtimeHandler ?? '',
  };
}

export function criContainer(c: ContainerInfo, sandbox: Sandbox | undefined): CriContainer {
  return {
    id: c.id,
    podSandboxId: c.sandboxId,
    metadata: { name: c.name, attempt: c.attempt },
    image: { image: c.image },
    imageRef: imageIdOf(c.image),
    state: STATES[c.state],
    createdAt: nanos(c.createdAt),
    labels: { 'io.kubernetes.container.name': c.name, ...podLabels(sandbox) },
    annotations: {},
  };
}

const criMount = (m: Mount): CriMount => ({ containerPath: m.containerPath, hostPath: m.hostPath, readonly: m.readOnly, propagation: 'PROPAGATION_PRIVATE' });

export function criContainerStatus(c: ContainerInfo, sandbox: Sandbox | undefined, runtimeName: string, pid: number | undefined): CriContainerStatus {
  return {
    status: {
      ...criContainer(c, sandbox),
      startedAt: nanos(c.startedAt),
      finishedAt: nanos(c.finishedAt),
      exitCode: c.exitCode ?? 0,
      reason: c.waiting?.reason ?? c.reason ?? '',
      message: c.waiting?.message ?? '',
      mounts: (c.mounts ?? []).map(criMount),
    },
    info: { sandboxID: c.sandboxId, runtime: c.runtime ?? runtimeName, ...(pid !== undefined ? { pid } : {}) },
  };
}

/** The one container whose id is `prefix` or starts with it, as crictl takes ids: NotFound for none, BadRequest for several. */
export function containerByPrefix(containers: readonly ContainerInfo[], prefix: string): ContainerInfo {
  const exact = containers.find((c) => c.id === prefix);
  if (exact) return exact;
  const matches = prefix ? containers.filter((c) => c.id.startsWith(prefix)) : [];
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new KedgeError('NotFound', `no container with ID "${prefix}" on this edge`);
  const ids = matches.map((c) => c.id.slice(0, 13)).join(', ');
  throw new KedgeError('BadRequest', `container ID prefix "${prefix}" is ambiguous: it matches ${matches.length} containers (${ids}); give more of it`);
}
