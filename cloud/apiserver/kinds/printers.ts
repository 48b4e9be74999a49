import type { ContainerStatus, Namespace, Node, Pod } from '../../../shared/types.js';
import type { Printer } from './registry.js';
import { age } from '../rest/tables.js';
import { humanDuration } from '../../client/human-duration.js';

/** Column sets and cells as kube-apiserver's printers (pkg/printers/internalversion) produce them. */
export const nameColumn = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.' };
export const ageColumn = { name: 'Age', type: 'string', description: 'Time since the object was created.' };

export const podPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.' },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.' },
    { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.' },
    ageColumn,
    { name: 'IP', type: 'string', priority: 1, description: 'IP address allocated to the pod.' },
    { name: 'Node', type: 'string', priority: 1, description: 'Name of the Node this pod is assigned to.' },
    { name: 'Nominated Node', type: 'string', priority: 1, description: 'Name of the node nominated for this pod.' },
    { name: 'Readiness Gates', type: 'string', priority: 1, description: 'The readiness gates of this pod.' },
  ],
  cells(obj, now) {
    const pod = obj as Pod;
    const statuses = pod.status?.containerStatuses ?? [];
    const ready = statuses.filter((c) => c.ready).length;
    const total = pod.spec?.containers?.length ?? 0;
    return [
      pod.metadata.name ?? '',
      `${ready}/${total}`,
      podStatusReason(pod),
      restarts(initStatusReason(pod) === undefined ? statuses : (pod.status?.initContainerStatuses ?? []), now),
      age(pod.metadata.creationTimestamp, now),
      pod.status?.podIP || '<none>',
      pod.spec?.nodeName || '<none>',
      (pod.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName || '<none>',
      readinessGates(pod),
    ];
  },
};

/** The STATUS column: waiting/terminated reasons beat the phase; deletion shows Terminating. */
export function podStatusReason(pod: Pod): string {
  const init = initStatusReason(pod);
  if (init !== undefined) return pod.metadata.deletionTimestamp ? (pod.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating') : init;
  let reason: string = pod.status?.reason || pod.status?.phase || '';
  let hasRunning = false;
  const statuses = pod.status?.containerStatuses ?? [];
  for (let i = statuses.length - 1; i >= 0; i--) {
    const state = statuses[i]!.state ?? {};
    if (state.waiting?.reason) reason = state.waiting.reason;
    else if (state.terminated?.reason) reason = state.terminated.reason;
    else if (state.terminated) reason = `ExitCode:${state.terminated.exitCode}`;
    else if (state.running && statuses[i]!.ready) hasRunning = true;
  }
  if (reason === 'Completed' && hasRunning) {
    const readyCond = pod.status?.conditions?.find((c) => c.type === 'Ready');
    reason = readyCond?.status === 'True' ? 'Running' : 'NotReady';
  }
  if (pod.metadata.deletionTimestamp) reason = pod.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

/**
 * While the pod initializes (kubectl's printPod): `Init:<reason>` for the first init container
 * that failed or waits for a reason, else `Init:<done>/<total>`; undefined once initialized.
 */
function initStatusReason(pod: Pod): string | undefined {
  const statuses = pod.status?.initContainerStatuses ?? [];
  const total = pod.spec?.initContainers?.length ?? 0;
  if (pod.status?.conditions?.some((c) => c.type === 'Initialized' && c.status === 'True')) return undefined;
  for (let i = 0; i < statuses.length; i++) {
    const state = statuses[i]!.state ?? {};
    if (state.terminated?.exitCode === 0) continue;
    if (state.terminated) return state.terminated.reason ? `Init:${state.terminated.reason}` : `Init:ExitCode:${state.terminated.exitCode}`;
    if (state.waiting?.reason && state.waiting.reason !== 'PodInitializing') return `Init:${state.waiting.reason}`;
    return `Init:${i}/${total}`;
  }
  return undefined;
}

/** "3", or "3 (5m ago)" when a container's last termination time is known. */
function restarts(statuses: ContainerStatus[], now: number): string {
  let count = 0;
  let last = 0;
  for (const c of statuses) {
    count += c.restartCount ?? 0;
    const finished = c.lastState?.terminated?.finishedAt;
    if (finished) last = Math.max(last, Date.parse(finished) || 0);
  }
  return last > 0 ? `${count} (${humanDuration(now - last)} ago)` : String(count);
}

function readinessGates(pod: Pod): string {
  const gates = (pod.spec?.readinessGates as { conditionType: string }[] | undefined) ?? [];
  if (gates.length === 0) return '<none>';
  const conds = pod.status?.conditions ?? [];
  const met = gates.filter((g) => conds.some((c) => c.type === g.conditionType && c.status === 'True')).length;
  return `${met}/${gates.length}`;
}

export const nodePrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'The status of the node' },
    { name: 'Roles', type: 'string', description: 'The roles of the node' },
    ageColumn,
    { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.' },
    { name: 'Internal-IP', type: 'string', priority: 1, description: 'List of internal IPs of the node.' },
    { name: 'External-IP', type: 'string', priority: 1, description: 'List of external IPs of the node.' },
    { name: 'OS-Image', type: 'string', priority: 1, description: 'OS Image reported by the node.' },
    { name: 'Kernel-Version', type: 'string', priority: 1, description: 'Kernel Version reported by the node.' },
    { name: 'Container-Runtime', type: 'string', priority: 1, description: 'Container Runtime Version reported by the node.' },
  ],
  cells(obj, now) {
    const node = obj as Node;
    const info = node.status?.nodeInfo;
    return [
      node.metadata.name ?? '',
      nodeStatus(node),
      nodeRoles(node),
      age(node.metadata.creationTimestamp, now),
      info?.kubeletVersion ?? '',
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      info?.osImage || '<unknown>',
      info?.kernelVersion || '<unknown>',
      info?.containerRuntimeVersion || '<unknown>',
    ];
  },
};

/** "Ready", "NotReady" (Ready False or Unknown), "Unknown" (no Ready condition); ",SchedulingDisabled" when cordoned. */
export function nodeStatus(node: Node): string {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/')) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value) roles.add(value);
  }
  const list = [...roles].filter((r) => r !== '').sort();
  return list.length ? list.join(',') : '<none>';
}

function address(node: Node, type: string): string {
  return node.status?.addresses?.find((a) => a.type === type)?.address || '<none>';
}

export const namespacePrinter: Printer = {
  columns: [nameColumn, { name: 'Status', type: 'string', description: 'The status of the namespace' }, ageColumn],
  cells(obj, now) {
    const ns = obj as Namespace;
    return [ns.metadata.name ?? '', ns.status?.phase ?? '', age(ns.metadata.creationTimestamp, now)];
  },
};
