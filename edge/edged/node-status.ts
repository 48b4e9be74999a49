import type { Node, NodeCondition } from '../../shared/types.js';
import { KUBE_VERSION } from '../../shared/versions.js';

/** The kubelet's default --max-pods. */
export const DEFAULT_MAX_PODS = 110;
/** A node may not hold more. Each pod needs an address of the node's podCIDR: a /24 holds 253, a /16 65,533. */
export const MAX_PODS_LIMIT = 65_000;

/** What the node says about itself; everything but the times is fixed for the process. */
export interface NodeFacts {
  nodeName: string;
  hostIP: string;
  runtimeName: string;
  runtimeVersion: string;
  bootId: string;
  machineId: string;
  osImage: string;
  kernelVersion: string;
  /** When this kubelet became ready (its start). */
  readySince: number;
  /** Its capacity in pods (--max-pods; default 110). */
  maxPods?: number;
}

export const KUBELET_VERSION = KUBE_VERSION;

const iso = (ms: number): string => new Date(ms).toISOString();

function condition(type: string, ok: boolean, reason: string, message: string, facts: NodeFacts, now: number): NodeCondition {
  return {
    type,
    status: ok ? 'True' : 'False',
    lastHeartbeatTime: iso(now),
    lastTransitionTime: iso(facts.readySince),
    reason,
    message,
  };
}

/** What the node says it has for pods besides their count (and what a container without limits may use). */
export const NODE_ALLOCATABLE = { cpu: '4', memory: '8Gi' } as const;

/**
 * The Node object sent as registration and heartbeat [SYNC-11]. Only labels a kubelet may set
 * on itself (NodeRestriction): the cloud gives it its role (node-role.kubernetes.io/edge).
 */
export function buildNode(facts: NodeFacts, now: number): Node {
  const resources = { ...NODE_ALLOCATABLE, pods: String(facts.maxPods ?? DEFAULT_MAX_PODS) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: facts.nodeName,
      labels: {
        'kubernetes.io/hostname': facts.nodeName,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
    },
    spec: {},
    status: {
      capacity: { ...resources },
      allocatable: { ...resources },
      conditions: [
        condition('MemoryPressure', false, 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available', facts, now),
        condition('DiskPressure', false, 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', facts, now),
        condition('PIDPressure', false, 'KubeletHasSufficientPID', 'kubelet has sufficient PID available', facts, now),
        condition('Ready', true, 'KubeletReady', 'kubelet is posting ready status', facts, now),
      ],
      addresses: [
        { type: 'InternalIP', address: facts.hostIP },
        { type: 'Hostname', address: facts.nodeName },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: facts.machineId,
        systemUUID: facts.machineId,
        bootID: facts.bootId,
        kernelVersion: facts.kernelVersion,
        osImage: facts.osImage,
        containerRuntimeVersion: `${facts.runtimeName}://${facts.runtimeVersion}`,
        kubeletVersion: KUBELET_VERSION,
        kubeProxyVersion: KUBELET_VERSION,
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}
