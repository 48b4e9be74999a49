import type { Observable, Subscription } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import { isKedgeError, KedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { failureRun } from '../../shared/failure-run.js';
import type { Timing } from '../../shared/timing.js';
import type { Lease } from '../../shared/config-types.js';
import type { Node, Pod } from '../../shared/types.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import type { ComponentState } from '../components/component.js';
import type { Informers } from '../informer/shared-informers.js';
import { mirrorPodStatus, type CloudProcessFacts } from './mirror-status.js';
import { CONTROL_PLANE_ROLE_LABEL, controlPlaneNode, controlPlaneNodeStatus, nodeLease, nodeLeaseSeconds, NODE_LEASE_NAMESPACE, type ControlPlaneFacts } from './node-object.js';
import { isMirrorPodOn, MIRROR_NAMESPACE, planMirrorPods, type MirrorAction } from './plan.js';
import { mirrorPod, staticPods, type MirrorNode } from './static-pods.js';

export interface ControlPlaneNodeDeps {
  /** The cloud's own client (its system identity). */
  api: ApiClient;
  informers: Informers;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  components: { list(): ComponentState[]; readonly changes$: Observable<string> };
  facts: ControlPlaneFacts & CloudProcessFacts;
  /** The broker runs in this process: a container of the hub's pod. */
  embeddedBroker: boolean;
}

export interface ControlPlaneNodeHandle {
  close(): Promise<void>;
}

const podsRef = { resource: 'pods', namespace: MIRROR_NAMESPACE };

/**
 * The cloud as its own node, as a kubeadm control-plane node's kubelet: registers the Node,
 * renews its Ready heartbeat and its Lease every nodeStatusIntervalMs, and keeps one mirror
 * pod per static pod (static-pods.ts) whose readiness follows its component. A pass runs on
 * every tick, component change, and change of a pod on the node; passes never overlap.
 */
export async function startControlPlaneNode(deps: ControlPlaneNodeDeps): Promise<ControlPlaneNodeHandle> {
  const { api, clock, facts, logger } = deps;
  const manifests = staticPods(deps.embeddedBroker);
  const mirrors = new Map<string, Pod>();
  let node = await registerNode(api, facts, clock.now());

  const beat = async (): Promise<void> => {
    node = await writeNodeStatus(api, facts, clock.now());
    await renewLease(api, nodeLease(node, nodeLeaseSeconds(deps.timing), clock.now(), facts));
  };
  const syncMirrors = async (): Promise<void> => {
    const mirrorNode: MirrorNode = { name: facts.name, uid: node.metadata.uid!, address: facts.address };
    const states = new Map(deps.components.list().map((s) => [s.name, s]));
    const desired = manifests.map((m) => ({ ...mirrorPod(m, mirrorNode, facts.startedAt), status: mirrorPodStatus(m, mirrorNode, states, facts) }));
    for (const action of planMirrorPods(desired, [...mirrors.values()])) await applyMirrorAction(api, action);
  };
  const passes = serialPasses(logger, async (withBeat) => {
    if (withBeat) await beat();
    await syncMirrors();
  });

  const subscriptions: Subscription[] = [
    deps.components.changes$.subscribe(() => passes.request(false)),
    deps.informers.of<Pod>({ resource: 'pods' }).subscribe((event) => {
      if (event.type === 'SYNCED') return passes.request(false);
      const pod = event.object;
      // Names are unique in kube-system only: a pod of the same name elsewhere is another pod.
      if (pod.metadata.namespace !== MIRROR_NAMESPACE) return;
      const tracked = mirrors.has(pod.metadata.name!);
      const mirror = event.type !== 'DELETED' && isMirrorPodOn(pod, facts.name);
      if (mirror) mirrors.set(pod.metadata.name!, pod);
      else mirrors.delete(pod.metadata.name!);
      if (mirror || tracked) passes.request(false);
    }),
  ];
  await beat();
  const stopTicks = clock.setRepeating(deps.timing.nodeStatusIntervalMs, () => passes.request(true));
  logger.info('registered the cloud as a control-plane node', { node: facts.name, address: facts.address });
  return {
    close: async () => {
      stopTicks();
      for (const s of subscriptions) s.unsubscribe();
      await passes.idle();
    },
  };
}

/** Creates the Node (with kubeadm's role label and taint) or, when it exists, writes its status; returns it. */
async function registerNode(api: ApiClient, facts: ControlPlaneFacts, now: number): Promise<Node> {
  const existing = await getOrUndefined(() => api.get<Node>({ resource: 'nodes', name: facts.name }));
  if (existing) {
    if (existing.metadata.labels?.[CONTROL_PLANE_ROLE_LABEL] === undefined) {
      throw new KedgeError('Conflict', `node ${facts.name} exists without the ${CONTROL_PLANE_ROLE_LABEL} label (an edge's Node?): the cloud will not take it over; start it with another --node-name`);
    }
    return writeNodeStatus(api, facts, now);
  }
  await api.create<Node>({ resource: 'nodes' }, controlPlaneNode(facts, now));
  return writeNodeStatus(api, facts, now);
}

/** Writes against a Node others change too (the node-IPAM controller sets its podCIDR): a few tries on Conflict. */
const STATUS_TRIES = 5;

/** The node's status as of `now` (Ready, heartbeat now); registers the Node again if someone deleted it. */
async function writeNodeStatus(api: ApiClient, facts: ControlPlaneFacts, now: number): Promise<Node> {
  for (let attempt = 1; ; attempt++) {
    const current = await getOrUndefined(() => api.get<Node>({ resource: 'nodes', name: facts.name }));
    if (!current) return registerNode(api, facts, now);
    try {
      return await api.replace<Node>({ resource: 'nodes', name: facts.name, subresource: 'status' }, { ...current, status: controlPlaneNodeStatus(facts, now) });
    } catch (err) {
      if (!isKedgeError(err, 'Conflict') || attempt >= STATUS_TRIES) throw err;
    }
  }
}

async function renewLease(api: ApiClient, lease: Lease): Promise<void> {
  const ref = { resource: 'leases', group: 'coordination.k8s.io', namespace: NODE_LEASE_NAMESPACE, name: lease.metadata.name! };
  const current = await getOrUndefined(() => api.get<Lease>(ref));
  if (!current) return void (await api.create<Lease>({ ...ref, name: undefined }, lease));
  const annotations = { ...current.metadata.annotations, ...lease.metadata.annotations };
  // The owner too: a Lease claimed before the Node existed (node-name-claim.ts) has none.
  const metadata = { ...current.metadata, ownerReferences: lease.metadata.ownerReferences, annotations };
  await api.replace<Lease>(ref, { ...current, metadata, spec: { ...current.spec, ...lease.spec } });
}

async function applyMirrorAction(api: ApiClient, action: MirrorAction): Promise<void> {
  try {
    if (action.type === 'delete') return void (await api.delete({ ...podsRef, name: action.name }, { gracePeriodSeconds: 0, preconditions: { uid: action.uid } }));
    const { status, ...pod } = action.pod;
    const ref = { ...podsRef, name: pod.metadata.name! };
    const base = action.type === 'create' ? await api.create<Pod>(podsRef, pod) : action.pod;
    await api.replace<Pod>({ ...ref, subresource: 'status' }, { ...base, status });
  } catch (err) {
    // Someone else's change came first: the pass that change starts sees it.
    if (!isKedgeError(err, 'Conflict') && !isKedgeError(err, 'NotFound') && !isKedgeError(err, 'AlreadyExists')) throw err;
  }
}

/**
 * Runs passes one at a time: a request while one runs makes one more pass after it (with a
 * beat if any request asked for one). A failed pass is logged (once until one succeeds again);
 * the next tick tries again.
 */
function serialPasses(logger: Logger, pass: (withBeat: boolean) => Promise<void>): { request(withBeat: boolean): void; idle(): Promise<void> } {
  let running: Promise<void> | undefined;
  let pending: { withBeat: boolean } | undefined;
  const failures = failureRun(logger, { failed: 'cannot write the control-plane node or its mirror pods; trying again', recovered: 'the control-plane node is written again' });
  const run = async (withBeat: boolean): Promise<void> => {
    await pass(withBeat).then(() => failures.succeeded(), (err: unknown) => failures.failed(err));
    const next = pending;
    pending = undefined;
    running = next ? run(next.withBeat) : undefined;
  };
  return {
    request(withBeat) {
      if (running) pending = { withBeat: withBeat || (pending?.withBeat ?? false) };
      else running = run(withBeat);
    },
    idle: async () => {
      pending = undefined;
      while (running) await running;
    },
  };
}
