import { parseLabelSelector } from '../../cloud/apiserver/rest/selectors.js';
import type { Deployment } from '../../shared/apps-types.js';
import type { Node, Pod } from '../../shared/types.js';
import type { ConnectionExpectation, DeploymentExpectation, FileExpectation, NodeExpectation, PodPhaseName, PodsExpectation, ReadyStatus, RejectedExpectation } from './types.js';

/** Whether an expectation holds, and what was seen (for the report). */
export interface Verdict {
  ok: boolean;
  seen: string;
}

/** The edge's GET /connection. */
export interface EdgeConnection {
  connected: boolean;
  offlineSince: string | null;
  queued: number;
}

/** How an attempt to create (a dry run) went: accepted, or refused with an HTTP status. */
export type Attempt = { created: true } | { created: false; status: number; message: string };

export function podPhase(pod: Pod): PodPhaseName {
  return pod.metadata.deletionTimestamp ? 'Terminating' : (pod.status?.phase ?? 'Pending');
}

const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const restarts = (pod: Pod): number => (pod.status?.containerStatuses ?? []).reduce((sum, c) => sum + (c.restartCount ?? 0), 0);
const containers = (pod: Pod) => [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
const isWaiting = (pod: Pod, reason: string): boolean => containers(pod).some((c) => c.state?.waiting?.reason === reason);

/** Every message the pod's status carries: its own, its conditions', its containers' (waiting or terminated). */
function messages(pod: Pod): string[] {
  const own = [pod.status?.message, ...(pod.status?.conditions ?? []).map((c) => c.message)];
  const ofContainers = containers(pod).flatMap((c) => [c.state?.waiting?.message, c.state?.terminated?.message]);
  return [...own, ...ofContainers].filter((m): m is string => typeof m === 'string');
}

export function nodeReady(node: Node | undefined): ReadyStatus | undefined {
  return node?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/** The pods an expectation counts, among those of its view. Pure. */
export function matchingPods(e: PodsExpectation, pods: readonly Pod[]): Pod[] {
  const selector = parseLabelSelector(e.selector);
  return pods.filter(
    (p) =>
      (e.node === undefined || p.spec.nodeName === e.node) &&
      (e.namespace === undefined || (p.metadata.namespace ?? 'default') === e.namespace) &&
      selector(p.metadata.labels ?? {}) &&
      (e.phase === undefined || podPhase(p) === e.phase) &&
      (e.ready === undefined || isReady(p) === e.ready) &&
      (e.scheduled === undefined || Boolean(p.spec.nodeName) === e.scheduled) &&
      (e.minRestarts === undefined || restarts(p) >= e.minRestarts) &&
      (e.maxRestarts === undefined || restarts(p) <= e.maxRestarts) &&
      (e.waiting === undefined || isWaiting(p, e.waiting)) &&
      (e.message === undefined || messages(p).some((m) => m.includes(e.message!))),
  );
}

function podLine(p: Pod): string {
  const ready = isReady(p) ? ', ready' : '';
  const waiting = containers(p).find((c) => c.state?.waiting?.reason)?.state?.waiting?.reason;
  return `${p.metadata.name} ${podPhase(p)}${ready}${waiting ? ` (${waiting})` : ''} on ${p.spec.nodeName || '(no node)'}`;
}

/** Lists at most a few, then how many more. */
function some(lines: string[], most = 6): string {
  return lines.length <= most ? lines.join('; ') : `${lines.slice(0, most).join('; ')}; and ${lines.length - most} more`;
}

export function judgePods(e: PodsExpectation, pods: readonly Pod[]): Verdict {
  const matched = matchingPods(e, pods);
  const n = matched.length;
  const ok = n >= e.min && n <= e.max;
  return { ok, seen: n === 0 ? `no matching pod (of ${pods.length})` : `${n} matching: ${some(matched.map(podLine))}` };
}

export function judgeNode(e: NodeExpectation, node: Node | undefined): Verdict {
  if (!node) return { ok: false, seen: `no node ${e.node}` };
  const ready = nodeReady(node) ?? 'none';
  const taints = (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`);
  return { ok: ready === e.ready, seen: `Ready=${ready}${taints.length ? `, taints ${taints.join(', ')}` : ''}` };
}

export function judgeDeployment(e: DeploymentExpectation, d: Deployment | undefined): Verdict {
  if (!d) return { ok: false, seen: `no deployment ${e.name}` };
  const available = d.status?.availableReplicas ?? 0;
  return { ok: available === e.available, seen: `${available} available of ${d.spec.replicas ?? 1} wanted` };
}

export function judgeConnection(e: ConnectionExpectation, c: EdgeConnection): Verdict {
  const seen = c.connected ? `connected, ${c.queued} queued` : `offline since ${c.offlineSince}, ${c.queued} queued`;
  return { ok: c.connected === e.connected, seen };
}

export function judgeRejection(e: RejectedExpectation, attempt: Attempt): Verdict {
  if (attempt.created) return { ok: false, seen: 'accepted (a dry run: nothing was stored)' };
  return { ok: e.status === undefined || attempt.status === e.status, seen: `HTTP ${attempt.status}: ${attempt.message}` };
}

/** What reading a file on an edge gave: its text, or why there is none. */
export type FileRead = { text: string } | { problem: string };

/** Longer texts are cut in what the report says was seen. */
const SEEN_CHARS = 80;

export function judgeFile(e: FileExpectation, read: FileRead): Verdict {
  if ('problem' in read) return { ok: false, seen: read.problem };
  const text = read.text.length > SEEN_CHARS ? `${read.text.slice(0, SEEN_CHARS)}…` : read.text;
  return { ok: read.text.includes(e.contains), seen: JSON.stringify(text) };
}
