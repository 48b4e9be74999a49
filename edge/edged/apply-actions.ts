import type { Logger } from '../../shared/log.js';
import type { Container, Pod } from '../../shared/types.js';
import type { ContainerConfig, Runtime } from '../runtime/runtime.js';
import type { ActualPods, PodAction } from './plan-pods.js';

const DEFAULT_GRACE_MS = 30_000;

function containerConfig(pod: Pod, container: Container, attempt: number): ContainerConfig {
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  const config: ContainerConfig = { name: container.name, attempt, env, annotations: { ...(pod.metadata.annotations ?? {}) } };
  if (container.image !== undefined) config.image = container.image;
  if (container.command) config.command = container.command;
  if (container.args) config.args = container.args;
  if (container.workingDir) config.workingDir = container.workingDir;
  return config;
}

/** The pod an action is about, so that each pod's actions run in order. */
function podOf(action: PodAction, actual: ActualPods): string {
  switch (action.type) {
    case 'killPod':
      return action.podUid;
    case 'removeContainer':
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
export async function applyPodActions(runtime: Runtime, actions: PodAction[], actual: ActualPods, logger: Logger): Promise<void> {
  const killed = new Set(actions.flatMap((a) => (a.type === 'killPod' ? [a.sandboxId] : [])));
  const sandboxOf = new Map(actual.sandboxes.filter((s) => s.state === 'ready' && !killed.has(s.id)).map((s) => [s.podUid, s.id]));
  const running = new Set(actual.containers.filter((c) => c.state !== 'exited').map((c) => c.id));
  const byPod = new Map<string, PodAction[]>();
  for (const action of actions) byPod.set(podOf(action, actual), [...(byPod.get(podOf(action, actual)) ?? []), action]);
  await Promise.all([...byPod.values()].map((podActions) => applyInOrder(runtime, podActions, { sandboxOf, running }, logger)));
}

async function applyInOrder(
  runtime: Runtime,
  actions: PodAction[],
  { sandboxOf, running }: { sandboxOf: Map<string, string>; running: Set<string> },
  logger: Logger,
): Promise<void> {
  for (const action of actions) {
    try {
      switch (action.type) {
        case 'killPod':
          for (const id of action.containerIds) {
            if (running.has(id)) await runtime.stopContainer(id, DEFAULT_GRACE_MS);
            await runtime.removeContainer(id);
          }
          await runtime.stopSandbox(action.sandboxId);
          await runtime.removeSandbox(action.sandboxId);
          logger.info('killed pod', { podUid: action.podUid, reason: action.reason });
          break;
        case 'removeContainer':
          if (running.has(action.containerId)) await runtime.stopContainer(action.containerId, DEFAULT_GRACE_MS);
          await runtime.removeContainer(action.containerId);
          break;
        case 'runSandbox': {
          const { uid = '', name = '', namespace = 'default', annotations } = action.pod.metadata;
          const handler = action.pod.spec.runtimeClassName;
          const sandbox = await runtime.runSandbox({ podUid: uid, name, namespace, ...(annotations ? { annotations } : {}), ...(handler ? { runtimeHandler: handler } : {}) });
          sandboxOf.set(uid, sandbox.id);
          logger.info('started pod sandbox', { pod: `${namespace}/${name}`, ip: sandbox.ip });
          break;
        }
        case 'startContainer': {
          const sandboxId = sandboxOf.get(action.pod.metadata.uid ?? '');
          if (!sandboxId) break; // its sandbox could not be created; the next sync tries again
          const id = await runtime.createContainer(sandboxId, containerConfig(action.pod, action.container, action.attempt));
          await runtime.startContainer(id);
          break;
        }
      }
    } catch (err) {
      logger.warn('action failed; will retry on the next sync', { action: action.type, error: (err as Error).message });
    }
  }
}
