import type { ComponentState } from '../components/component.js';
import type { ContainerStatus, PodCondition, PodStatus } from '../../shared/types.js';
import { staticImage, type MirrorNode, type StaticPod } from './static-pods.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The process the cloud's components live in: its boot id (container ids) and when it started. */
export interface CloudProcessFacts {
  bootId: string;
  startedAt: number;
}

/** A component's state, or stopped since the start when the set has no such component. */
function stateOf(states: ReadonlyMap<string, ComponentState>, name: string, process: CloudProcessFacts): ComponentState {
  return states.get(name) ?? { name, running: false, healthy: false, stoppable: false, since: iso(process.startedAt), message: 'not part of this cloud' };
}

/**
 * A static pod's status from its components' states. Every container runs as long as the cloud
 * runs (the process does); one is ready while its component runs and is healthy, so a stopped
 * scheduler shows `kube-scheduler-… 0/1 Running`, as a kube-scheduler that runs but fails its
 * readiness probe would. Times come from the states, never from now: the same states give the
 * same status (nothing to write). Pure.
 */
export function mirrorPodStatus(manifest: StaticPod, node: MirrorNode, states: ReadonlyMap<string, ComponentState>, process: CloudProcessFacts): PodStatus {
  const containers = manifest.containers.map((c) => ({ container: c, state: stateOf(states, c.component, process) }));
  const containerStatuses: ContainerStatus[] = containers.map(({ container, state }) => ({
    name: container.name,
    ready: state.healthy,
    started: true,
    restartCount: 0,
    image: staticImage(container.name),
    imageID: '',
    containerID: `kedge://${process.bootId}/${container.name}`,
    state: { running: { startedAt: iso(process.startedAt) } },
    lastState: {},
  }));
  const unready = containers.filter(({ state }) => !state.healthy);
  // The last flip decides since when the pod is (un)ready.
  const flips = (unready.length > 0 ? unready : containers).map(({ state }) => Date.parse(state.since));
  const readySince = iso(Math.max(process.startedAt, ...flips));
  const since = iso(process.startedAt);
  const notReady = { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.map(({ container }) => container.name).join(' ')}]` };
  const readiness = (type: string): PodCondition =>
    unready.length === 0 ? { type, status: 'True', lastProbeTime: null, lastTransitionTime: readySince } : { type, status: 'False', lastProbeTime: null, lastTransitionTime: readySince, ...notReady };
  return {
    phase: 'Running',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: since },
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: since },
      readiness('Ready'),
      readiness('ContainersReady'),
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: since },
    ],
    hostIP: node.address,
    hostIPs: [{ ip: node.address }],
    podIP: node.address,
    podIPs: [{ ip: node.address }],
    startTime: since,
    containerStatuses,
    qosClass: 'BestEffort',
  };
}
