import { createHash } from 'node:crypto';
import type { ContainerState, ContainerStateTerminated, ContainerStateWaiting, ContainerStatus, Pod, PodCondition, PodPhase, PodStatus } from '../../shared/types.js';
import { containerIdOf, type ContainerInfo, type Sandbox } from '../runtime/runtime.js';
import type { ProbeStatuses } from '../prober/probe-status.js';
import { initDone } from './plan-containers.js';
import { attemptsOf, restartBackoff, shouldRestart, shouldRestartInit, type TimeScale } from './restart-policy.js';

export interface PodStatusInput {
  /** The pod as cached; its `status` is the previous status edged reported (or the cloud's). */
  pod: Pod;
  sandbox: Sandbox | undefined;
  containers: ContainerInfo[];
  /** The runtime's name, for a container that does not say which runtime runs it. */
  runtimeName: string;
  hostIP: string;
  now: number;
  /** For the restart back-off (default: real time). */
  timing?: TimeScale;
  /** What the prober says, by container id (none: no probe has answered yet). */
  probes?: ProbeStatuses;
  /** Why a container that is not running waits, beyond what the runtime says (edged's ContainerWaits). */
  waiting?: (container: string) => ContainerStateWaiting | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The imageID a container's status shows: its image with a digest made from its name (no image is pulled). */
/** Image ids already worked out: a node runs few images, and each sync names every container's. */
const imageIds = new Map<string, string>();
const IMAGE_IDS_KEPT = 1_000;

export function imageIdOf(image: string): string {
  const name = String(image); // a forged apply may carry anything
  let id = imageIds.get(name);
  if (id !== undefined) return id;
  if (imageIds.size >= IMAGE_IDS_KEPT) imageIds.clear();
  id = `${name}@sha256:${createHash('sha256').update(name).digest('hex')}`;
  imageIds.set(name, id);
  return id;
}

function terminated(c: ContainerInfo): ContainerState {
  const t: NonNullable<ContainerState['terminated']> = { exitCode: c.exitCode ?? 0, reason: c.reason ?? 'Completed' };
  if (c.startedAt !== undefined) t.startedAt = iso(c.startedAt);
  if (c.finishedAt !== undefined) t.finishedAt = iso(c.finishedAt);
  return { terminated: t };
}

/** Kubernetes' QoS class from the containers' requests and limits. */
export function qosClassOf(pod: Pod): string {
  const resources = pod.spec.containers.map((c) => c.resources ?? {});
  if (resources.every((r) => !Object.keys(r.requests ?? {}).length && !Object.keys(r.limits ?? {}).length)) return 'BestEffort';
  const guaranteed = resources.every((r) =>
    ['cpu', 'memory'].every((k) => r.limits?.[k] !== undefined && (r.requests?.[k] ?? r.limits[k]) === r.limits[k]),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** A container not yet running waits for ContainerCreating, or PodInitializing in a pod with init containers (as the kubelet says), or for what its runtime says stops it (ErrImagePull). */
function stateOf(c: ContainerInfo | undefined, pod: Pod): ContainerState {
  if (c?.state === 'created' && c.waiting) return { waiting: { ...c.waiting } };
  if (!c || c.state === 'created') return { waiting: { reason: pod.spec.initContainers?.length ? 'PodInitializing' : 'ContainerCreating' } };
  if (c.state === 'running') return { running: { startedAt: iso(c.startedAt ?? c.createdAt) } };
  if (c.state === 'exited') return terminated(c);
  return { waiting: { reason: 'Unknown' } };
}

/** How a container the runtime no longer knows (lost in a node reboot) last showed. */
export const LOST_CONTAINER: ContainerStateTerminated = { exitCode: 255, reason: 'Unknown', message: 'The container could not be located when the pod was restarted' };

/**
 * lastState when the runtime holds no earlier attempt: carried over from the status edged last
 * reported, so a node reboot (which wipes the runtime) does not erase how the last run ended.
 */
function carriedLastState(input: PodStatusInput, name: string, latest: ContainerInfo | undefined): ContainerState {
  const reported = input.pod.status?.containerStatuses?.find((s) => s.name === name);
  if (!latest || !reported?.containerID || latest.attempt === 0) return {};
  if (reported.containerID.endsWith(`://${latest.id}`)) return structuredClone(reported.lastState);
  // The reported container is gone: its end is this one's lastState.
  if (reported.state.terminated) return { terminated: structuredClone(reported.state.terminated) };
  if (reported.state.running) {
    const lost = { ...LOST_CONTAINER };
    if (reported.state.running.startedAt) lost.startedAt = reported.state.running.startedAt;
    return { terminated: lost };
  }
  return structuredClone(reported.lastState);
}

/**
 * An exited container waiting out its restart back-off shows as the kubelet shows it:
 * waiting in CrashLoopBackOff, its end in lastState. Undefined when it is not waiting.
 */
function crashLoopState(input: PodStatusInput, attempts: ContainerInfo[], init: boolean): Pick<ContainerStatus, 'state' | 'lastState'> | undefined {
  const { pod, now } = input;
  const latest = attempts.at(-1);
  if (latest?.state !== 'exited' || !(init ? shouldRestartInit(pod, latest) : shouldRestart(pod, latest))) return undefined;
  const backoff = restartBackoff(latest, attempts.at(-2), input.timing ?? { timeScale: 1 });
  if (!backoff || now >= backoff.at) return undefined;
  const { name = '', namespace = 'default', uid = '' } = pod.metadata;
  const message = `back-off ${backoff.seconds}s restarting failed container=${latest.name} pod=${name}_${namespace}(${uid})`;
  return { state: { waiting: { reason: 'CrashLoopBackOff', message } }, lastState: terminated(latest) };
}

/**
 * A running container has started once its startup probe (if any) succeeded, and is ready once
 * started, ready to its runtime and to its readiness probe (if any); init containers are not probed.
 */
function probed(input: PodStatusInput, name: string, init: boolean, latest: ContainerInfo | undefined): Pick<ContainerStatus, 'started' | 'ready'> {
  if (latest?.state !== 'running') return { started: false, ready: false };
  const spec = init ? undefined : input.pod.spec.containers.find((c) => c.name === name);
  const probes = input.probes?.get(latest.id);
  const started = !spec?.startupProbe || probes?.started === true;
  const ready = started && latest.ready !== false && (!spec?.readinessProbe || probes?.ready === true);
  return { started, ready };
}

function containerStatus(input: PodStatusInput, name: string, image: string, init = false): ContainerStatus {
  const attempts = input.sandbox ? attemptsOf(input.containers, input.sandbox.id, name) : [];
  const latest = attempts.at(-1);
  const previous = attempts.length > 1 ? attempts.at(-2) : undefined;
  const lastState = previous ? (previous.state === 'exited' ? terminated(previous) : {}) : carriedLastState(input, name, latest);
  const completed = init && latest?.state === 'exited' && latest.exitCode === 0;
  const { started, ready } = probed(input, name, init, latest);
  const status: ContainerStatus = {
    name,
    ready: completed || ready,
    started,
    restartCount: latest?.attempt ?? 0,
    image,
    imageID: latest ? imageIdOf(image) : '',
    state: waitingState(input, name, latest) ?? stateOf(latest, input.pod),
    lastState,
    ...crashLoopState(input, attempts, init),
  };
  if (latest) status.containerID = containerIdOf(input.runtimeName, latest);
  if (latest?.mounts?.length) status.volumeMounts = latest.mounts.map((m) => ({ name: m.name, mountPath: m.containerPath, ...(m.readOnly ? { readOnly: true } : {}) }));
  return status;
}

/** A container that never ran or exited, waiting for what edged knows and the runtime does not (a config error, a volume). */
function waitingState(input: PodStatusInput, name: string, latest: ContainerInfo | undefined): ContainerState | undefined {
  if (latest && latest.state !== 'exited') return undefined;
  const extra = input.waiting?.(name);
  if (!extra) return undefined;
  return { waiting: { ...(latest ? {} : stateOf(undefined, input.pod).waiting), ...extra } };
}

/** A container of a pod being deleted, after edged stopped it: terminated, its last run kept. */
function stoppedStatus(input: PodStatusInput, name: string, image: string): ContainerStatus {
  const reported = input.pod.status?.containerStatuses?.find((s) => s.name === name);
  const terminated: NonNullable<ContainerState['terminated']> = reported?.state?.terminated ?? { exitCode: 0, reason: 'Completed' };
  if (!reported?.state?.terminated && reported?.state?.running?.startedAt) terminated.startedAt = reported.state.running.startedAt;
  return {
    name, ready: false, started: false, restartCount: reported?.restartCount ?? 0, image, imageID: reported?.imageID ?? '',
    state: { terminated }, lastState: reported?.lastState ?? {}, ...(reported?.containerID ? { containerID: reported.containerID } : {}),
  };
}

/** The init containers not yet completed (all of them without a sandbox). */
function initPending(input: PodStatusInput): string[] {
  const inits = input.pod.spec.initContainers ?? [];
  if (input.sandbox && initDone(input.pod, input.sandbox.id, input.containers)) return [];
  return inits.filter((c) => !input.sandbox || attemptsOf(input.containers, input.sandbox.id, c.name).at(-1)?.exitCode !== 0).map((c) => c.name);
}

/** An init container that failed and will not run again (restartPolicy Never) fails the pod. */
function initFailed(input: PodStatusInput): boolean {
  if (!input.sandbox) return false;
  return (input.pod.spec.initContainers ?? []).some((c) => {
    const latest = attemptsOf(input.containers, input.sandbox!.id, c.name).at(-1);
    return latest?.state === 'exited' && latest.exitCode !== 0 && !shouldRestartInit(input.pod, latest);
  });
}

function phaseOf(input: PodStatusInput, statuses: ContainerStatus[], initializing: boolean): PodPhase {
  if (!input.sandbox || statuses.length === 0) return 'Pending';
  if (initializing) return initFailed(input) ? 'Failed' : 'Pending';
  const latest = input.pod.spec.containers.map((c) => attemptsOf(input.containers, input.sandbox!.id, c.name).at(-1));
  const finished = latest.every((c) => c?.state === 'exited' && !shouldRestart(input.pod, c));
  if (finished) return latest.every((c) => c?.exitCode === 0) ? 'Succeeded' : 'Failed';
  const begun = statuses.some((s) => s.state.running || s.state.terminated || s.restartCount > 0);
  return begun ? 'Running' : 'Pending';
}

/** Builds a condition, keeping the previous lastTransitionTime while its status is unchanged. */
function condition(input: PodStatusInput, type: string, ok: boolean, reason?: string, message?: string): PodCondition {
  const status = ok ? 'True' : 'False';
  const before = input.pod.status?.conditions?.find((c) => c.type === type);
  const out: PodCondition = {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: before?.status === status && before.lastTransitionTime ? before.lastTransitionTime : iso(input.now),
  };
  if (!ok && reason) out.reason = reason;
  if (!ok && message) out.message = message;
  return out;
}

/** The pod's status as edged sees it: a pure function of the pod, its sandbox and containers. */
export function derivePodStatus(input: PodStatusInput): PodStatus {
  const { pod, sandbox } = input;
  // Being deleted and its sandbox gone: every container has stopped, which tells the cloud it may remove the pod.
  const stopped = pod.metadata.deletionTimestamp !== undefined && !sandbox;
  const statuses = pod.spec.containers.map((c) => (stopped ? stoppedStatus(input, c.name, c.image ?? '') : containerStatus(input, c.name, c.image ?? '')));
  const incomplete = stopped ? [] : initPending(input);
  const phase = stopped ? (pod.status?.phase ?? 'Pending') : phaseOf(input, statuses, incomplete.length > 0);
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const allReady = unready.length === 0 && statuses.length > 0;
  const why = phase === 'Succeeded' || phase === 'Failed' ? 'PodCompleted' : 'ContainersNotReady';
  const message = `containers with unready status: [${unready.join(' ')}]`;
  const status: PodStatus = {
    phase,
    conditions: [
      condition(input, 'PodReadyToStartContainers', sandbox?.state === 'ready'),
      condition(input, 'Initialized', incomplete.length === 0, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`),
      condition(input, 'Ready', allReady, why, message),
      condition(input, 'ContainersReady', allReady, why, message),
      condition(input, 'PodScheduled', true),
    ],
    hostIP: input.hostIP,
    hostIPs: [{ ip: input.hostIP }],
    startTime: pod.status?.startTime ?? iso(sandbox?.createdAt ?? input.now),
    containerStatuses: statuses,
    qosClass: qosClassOf(pod),
  };
  const inits = pod.spec.initContainers ?? [];
  if (inits.length > 0 && stopped && pod.status?.initContainerStatuses) status.initContainerStatuses = structuredClone(pod.status.initContainerStatuses);
  else if (inits.length > 0 && !stopped) status.initContainerStatuses = inits.map((c) => containerStatus(input, c.name, c.image ?? '', true));
  if (sandbox) {
    status.podIP = sandbox.ip;
    status.podIPs = [{ ip: sandbox.ip }];
  }
  return status;
}
