import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { noCrash, type CrashPoint } from '../crash-point.js';
import { containerRef, podRef } from '../events/event-types.js';
import { KubeletEventLog } from '../events/kubelet-event-log.js';
import { messages, REASONS } from '../events/kubelet-events.js';
import type { ContainerConfig, ContainerInfo, Runtime, Sandbox } from '../runtime/runtime.js';
import { containerMounts } from '../volumes/container-mounts.js';
import { containerConfig, EnvError, type EnvSources } from './container-config.js';
import type { ImagePulls } from './image-pulls.js';
import type { ActualPods, PodAction } from './plan-pods.js';
import { stopGraceMs } from './stop-grace.js';

/** What applying needs to know of the node besides the runtime. */
export interface ApplyContext {
  hostIP: string;
  timing: Pick<Timing, 'timeScale'>;
  /** Every pod the edge holds, those being deleted too: a container's stop grace period comes from its pod. */
  pods: Pod[];
  /** Fault injection between the steps of a start (durability tests); none by default. */
  crashPoint?: CrashPoint;
  /** The ConfigMaps and Secrets env reads (none: every reference to one fails). */
  env?: EnvSources;
  /** A pod's volumes' host paths, by volume name. */
  volumePaths?: (podUid: string) => ReadonlyMap<string, string> | undefined;
  /** Told whether each container's config could be built (undefined) or why not (CreateContainerConfigError). */
  onConfigResult?: (podUid: string, container: string, message: string | undefined) => void;
  /** Where the kubelet's Events go; none: nowhere. */
  events?: KubeletEventLog;
  /** Pulls a container's image before it is created; none: every image is on the node. */
  images?: Pick<ImagePulls, 'ensure'>;
}

interface ApplyState {
  sandboxOf: Map<string, Sandbox>;
  running: Set<string>;
  /** How long a container may take between SIGTERM and SIGKILL (its pod's grace period). */
  graceMsOf: (containerId: string) => number;
  hostIP: string;
  crashPoint: CrashPoint;
  context: ApplyContext;
  events: KubeletEventLog;
  /** The runtime's containers by id (for the names Killing events give). */
  containerOf: Map<string, ContainerInfo>;
}

/** The pod an action is about, so that each pod's actions run in order. */
function podOf(action: PodAction, actual: ActualPods): string {
  switch (action.type) {
    case 'killPod':
      return action.podUid;
    case 'removeContainer':
    case 'killContainer':
      return actual.containers.find((c) => c.id === action.containerId)?.podUid ?? action.containerId;
    default:
      return action.pod.metadata.uid ?? '';
  }
}

/**
 * Carries out a plan against the runtime: each pod's actions in order, different pods at
 * the same time. A failed action is logged and skipped (with the containers of a pod whose
 * sandbox failed); the next sync retries.
 */
export async function applyPodActions(runtime: Runtime, actions: PodAction[], actual: ActualPods, logger: Logger, context: ApplyContext): Promise<void> {
  const killed = new Set(actions.flatMap((a) => (a.type === 'killPod' ? [a.sandboxId] : [])));
  const sandboxOf = new Map(actual.sandboxes.filter((s) => s.state === 'ready' && !killed.has(s.id)).map((s) => [s.podUid, s]));
  const running = new Set(actual.containers.filter((c) => c.state !== 'exited').map((c) => c.id));
  const byPod = new Map<string, PodAction[]>();
  for (const action of actions) byPod.set(podOf(action, actual), [...(byPod.get(podOf(action, actual)) ?? []), action]);
  const podUidOf = new Map(actual.containers.map((c) => [c.id, c.podUid]));
  const graceMsOf = (containerId: string): number => stopGraceMs(context.pods.find((p) => p.metadata.uid === podUidOf.get(containerId)), context.timing);
  const events = context.events ?? new KubeletEventLog({ record: () => {} });
  const containerOf = new Map(actual.containers.map((c) => [c.id, c]));
  const state: ApplyState = { sandboxOf, running, graceMsOf, hostIP: context.hostIP, crashPoint: context.crashPoint ?? noCrash, context, events, containerOf };
  await Promise.all([...byPod.values()].map((podActions) => applyInOrder(runtime, podActions, state, logger)));
}

async function applyInOrder(runtime: Runtime, actions: PodAction[], state: ApplyState, logger: Logger): Promise<void> {
  const { sandboxOf, running, graceMsOf, crashPoint } = state;
  for (const action of actions) {
    try {
      switch (action.type) {
        case 'killPod':
          // All at once, as the kubelet does: a pod stops within one grace period, not one per container.
          await Promise.all(action.containerIds.map(async (id) => {
            if (running.has(id)) stopping(id, state);
            if (running.has(id)) await runtime.stopContainer(id, graceMsOf(id));
            await runtime.removeContainer(id);
          }));
          await runtime.stopSandbox(action.sandboxId);
          await runtime.removeSandbox(action.sandboxId);
          logger.info('killed pod', { podUid: action.podUid, reason: action.reason });
          break;
        case 'removeContainer':
          if (running.has(action.containerId)) await runtime.stopContainer(action.containerId, graceMsOf(action.containerId));
          await runtime.removeContainer(action.containerId);
          break;
        case 'killContainer':
          if (running.has(action.containerId)) stopping(action.containerId, state, action.definitionChanged ? undefined : action.reason, action.definitionChanged);
          if (running.has(action.containerId)) await runtime.stopContainer(action.containerId, action.graceMs);
          logger.info('killed container', { containerId: action.containerId, reason: action.reason });
          break;
        case 'runSandbox': {
          const { uid = '', name = '', namespace = 'default', annotations } = action.pod.metadata;
          const { runtimeClassName: handler, hostNetwork } = action.pod.spec;
          const sandbox = await runtime.runSandbox({
            podUid: uid, name, namespace, ...(annotations ? { annotations } : {}), ...(handler ? { runtimeHandler: handler } : {}), ...(hostNetwork === true ? { hostNetwork: true } : {}),
          }).catch((err: Error) => {
            state.events.recordOnce(`${uid}/sandbox`, err.message, podRef(action.pod), 'Warning', REASONS.failedSandbox, messages.failedSandbox(err.message));
            throw err;
          });
          state.events.clear(`${uid}/sandbox`);
          sandboxOf.set(uid, sandbox);
          crashPoint('sandbox-created');
          logger.info('started pod sandbox', { pod: `${namespace}/${name}`, ip: sandbox.ip });
          break;
        }
        case 'startContainer': {
          const sandbox = sandboxOf.get(action.pod.metadata.uid ?? '');
          if (!sandbox) break; // its sandbox could not be created; the next sync tries again
          if (state.context.images && !state.context.images.ensure(action.pod, action.container, action.attempt, isInit(action))) break; // pulled meanwhile
          const config = buildConfig(action, sandbox, state, logger);
          if (!config) break; // CreateContainerConfigError: the next sync tries again
          await createAndStart(runtime, sandbox, config, action, state);
          break;
        }
      }
    } catch (err) {
      logger.warn('action failed; will retry on the next sync', { action: action.type, error: (err as Error).message });
    }
  }
}

const isInit = (action: Extract<PodAction, { type: 'startContainer' }>): boolean => (action.pod.spec.initContainers ?? []).includes(action.container);

/** Creates and starts the container, with the kubelet's Created and Started events, or Failed with the error (once until a start succeeds). */
async function createAndStart(runtime: Runtime, sandbox: Sandbox, config: ContainerConfig, action: Extract<PodAction, { type: 'startContainer' }>, state: ApplyState): Promise<void> {
  const about = containerRef(action.pod, action.container.name, isInit(action));
  try {
    const id = await runtime.createContainer(sandbox.id, config);
    state.crashPoint('container-created');
    state.events.record(about, 'Normal', REASONS.created, messages.created(config.name));
    await runtime.startContainer(id);
    state.crashPoint('container-started');
    state.events.record(about, 'Normal', REASONS.started, messages.started(config.name));
    state.events.clear(`${action.pod.metadata.uid ?? ''}/${config.name}/start`);
  } catch (err) {
    const { message } = err as Error;
    state.events.recordOnce(`${action.pod.metadata.uid ?? ''}/${config.name}/start`, message, about, 'Warning', REASONS.failed, messages.failed(message));
    throw err;
  }
}

/** Killing: a running container of a pod the edge holds is stopped (`unhealthy`: because it failed a probe; `changed`: its definition changed). */
function stopping(containerId: string, state: ApplyState, unhealthy?: string, changed?: boolean): void {
  const c = state.containerOf.get(containerId);
  const pod = c && state.context.pods.find((p) => p.metadata.uid === c.podUid);
  if (!c || !pod) return;
  const message = changed ? messages.definitionChanged(c.name) : unhealthy ? messages.probeKill(c.name, unhealthy) : messages.stopping(c.name);
  state.events.record(containerRef(pod, c.name, (pod.spec.initContainers ?? []).some((i) => i.name === c.name)), 'Normal', REASONS.killing, message);
}

/** The container's config with its env and mounts; undefined (said to onConfigResult) when its env cannot be built. */
function buildConfig(action: Extract<PodAction, { type: 'startContainer' }>, sandbox: Sandbox, state: ApplyState, logger: Logger): ContainerConfig | undefined {
  const { hostIP, context } = state;
  const { pod, container } = action;
  const uid = pod.metadata.uid ?? '';
  try {
    const { config, unset } = containerConfig(pod, container, action.attempt, { podIP: sandbox.ip, hostIP }, context.env);
    if (unset.length > 0) logger.warn('env left unset', { pod: pod.metadata.name, container: container.name, unset });
    const mounts = containerMounts(container, context.volumePaths?.(uid) ?? new Map<string, string>());
    if (mounts.length > 0) config.mounts = mounts;
    context.onConfigResult?.(uid, container.name, undefined);
    state.events.clear(`${uid}/${container.name}/config`);
    return config;
  } catch (err) {
    if (!(err instanceof EnvError)) throw err;
    context.onConfigResult?.(uid, container.name, err.message);
    state.events.recordOnce(`${uid}/${container.name}/config`, err.message, containerRef(pod, container.name, isInit(action)), 'Warning', REASONS.failed, messages.failed(err.message));
    logger.warn('container config error; will retry on the next sync', { pod: pod.metadata.name, container: container.name, error: err.message });
    return undefined;
  }
}
