import type { Lease } from '../../shared/config-types.js';
import type { Timing } from '../../shared/timing.js';
import type { Node, Taint } from '../../shared/types.js';
import { KEDGE_VERSION, KUBE_VERSION } from '../../shared/versions.js';

/** kubeadm's role label and taint of a control-plane node. */
export const CONTROL_PLANE_ROLE_LABEL = 'node-role.kubernetes.io/control-plane';
export const CONTROL_PLANE_TAINT: Taint = { key: CONTROL_PLANE_ROLE_LABEL, effect: 'NoSchedule' };
export const DEFAULT_CONTROL_PLANE_NODE = 'kedge-control-plane';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/**
 * Which cloud renews a control-plane node's Lease: `<hostname>:<data dir>`, the same across the
 * restarts of one cloud and different for any other (two clouds never share a data dir).
 */
export const CLOUD_ANNOTATION = 'kedge.io/cloud';
/** Where edges reach the broker of the cloud whose node Lease this is (cloud/join/peer-brokers.ts). */
export const BROKER_URL_ANNOTATION = 'kedge.io/broker-url';

/** What the cloud's node says about itself; fixed for the process. */
export interface ControlPlaneFacts {
  name: string;
  /** The address the cloud serves on (InternalIP). */
  address: string;
  bootId: string;
  /** This machine's kernel (os.release()). */
  kernelVersion: string;
  /** When the cloud started: its node is Ready since then. */
  startedAt: number;
  /** Which cloud this is (node-name-claim.ts), marked on the node's Lease. */
  cloud?: string;
  /** Where edges reach this cloud's broker, marked on the node's Lease for the other clouds' join answers. */
  brokerUrl?: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The Node as kubeadm leaves a control-plane node: its role label and NoSchedule taint, as the cloud registers it. Pure. */
export function controlPlaneNode(facts: ControlPlaneFacts, now: number): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: facts.name,
      labels: {
        'kubernetes.io/hostname': facts.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        [CONTROL_PLANE_ROLE_LABEL]: '',
      },
    },
    spec: { taints: [{ ...CONTROL_PLANE_TAINT }] },
    status: controlPlaneNodeStatus(facts, now),
  };
}

/** The node's status at `now`: Ready (the cloud runs, so does its node), heartbeat `now`. Pure. */
export function controlPlaneNodeStatus(facts: ControlPlaneFacts, now: number): NonNullable<Node['status']> {
  const condition = (type: string, ok: boolean, reason: string, message: string) => ({
    type, status: ok ? ('True' as const) : ('False' as const), lastHeartbeatTime: iso(now), lastTransitionTime: iso(facts.startedAt), reason, message,
  });
  // The cloud runs no pods but its own mirror pods: it offers none.
  const resources = { cpu: '4', memory: '8Gi', pods: '0' };
  return {
    capacity: { ...resources },
    allocatable: { ...resources },
    conditions: [
      condition('MemoryPressure', false, 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      condition('DiskPressure', false, 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      condition('PIDPressure', false, 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      condition('Ready', true, 'KubeletReady', 'the kedge cloud is running its control plane'),
    ],
    addresses: [
      { type: 'InternalIP', address: facts.address },
      { type: 'Hostname', address: facts.name },
    ],
    nodeInfo: {
      machineID: facts.bootId,
      systemUUID: facts.bootId,
      bootID: facts.bootId,
      kernelVersion: facts.kernelVersion,
      osImage: 'kedge cloud',
      containerRuntimeVersion: `kedge://${KEDGE_VERSION}`,
      kubeletVersion: KUBE_VERSION,
      kubeProxyVersion: KUBE_VERSION,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** The node Lease's duration: the node-monitor grace period, in whole seconds. */
export const nodeLeaseSeconds = (timing: Pick<Timing, 'nodeMonitorGraceMs'>): number => Math.max(1, Math.round(timing.nodeMonitorGraceMs / 1000));

/** MicroTime, as Leases carry it: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/(\.\d{3})Z$/, '$1000Z');
}

/** The node's Lease in kube-node-lease, renewed at `now`, owned by its Node (as the kubelet's). Pure. */
export function nodeLease(node: Pick<Node, 'metadata'>, durationSeconds: number, now: number, marks: Pick<ControlPlaneFacts, 'cloud' | 'brokerUrl'> = {}): Lease {
  const name = node.metadata.name!;
  const marked = { ...(marks.cloud !== undefined && { [CLOUD_ANNOTATION]: marks.cloud }), ...(marks.brokerUrl !== undefined && { [BROKER_URL_ANNOTATION]: marks.brokerUrl }) };
  const annotations = Object.keys(marked).length === 0 ? {} : { annotations: marked };
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: NODE_LEASE_NAMESPACE, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid! }], ...annotations },
    spec: { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) },
  };
}
