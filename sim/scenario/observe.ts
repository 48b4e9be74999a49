import type { Deployment } from '../../shared/apps-types.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Node, Pod } from '../../shared/types.js';
import { severalClouds, type ScenarioCluster } from './cluster.js';
import { judgeLeaders } from './cloud-step.js';
import { judgeConnection, judgeDeployment, judgeFile, judgeNode, judgePods, judgeRejection, type Attempt, type FileRead, type Verdict } from './judge.js';
import { refOf } from './manifests.js';
import { checkService } from './observe-service.js';
import { judgeRead, judgeWrite, judgeWritten, WriteProbe } from './quorum-probes.js';
import type { Glimpse } from './timeline.js';
import type { Expectation, FileExpectation, PodsExpectation, RejectedExpectation } from './types.js';

const problem = (err: unknown): string => (isKedgeError(err) ? `HTTP ${err.httpStatus}: ${err.message}` : (err as Error).message);

/** undefined when the object does not exist; other failures propagate. */
async function find<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (isKedgeError(err, 'NotFound')) return undefined;
    throw err;
  }
}

async function viewOf(cluster: ScenarioCluster, e: PodsExpectation): Promise<Pod[]> {
  if (e.view === 'cloud') return (await cluster.api.list<Pod>({ resource: 'pods' })).items;
  const nodes = e.node === undefined ? cluster.nodes : [e.node];
  const views = await Promise.all(
    nodes.map(async (n) => {
      try {
        return await cluster.edgePods(n);
      } catch (err) {
        throw new Error(`${n} did not answer: ${(err as Error).message}`);
      }
    }),
  );
  return views.flat();
}

async function attempt(cluster: ScenarioCluster, e: RejectedExpectation): Promise<Attempt> {
  try {
    // A dry run: admitted the whole way, never stored, so an expectation that fails leaves nothing behind.
    await cluster.api.create(refOf(e.object), structuredClone(e.object), { dryRun: true });
    return { created: true };
  } catch (err) {
    if (!isKedgeError(err)) throw err;
    return { created: false, status: err.httpStatus, message: err.message };
  }
}

/** The file as the pod on the node that matches sees it, read on the edge. */
async function readPodFile(cluster: ScenarioCluster, e: FileExpectation): Promise<FileRead> {
  const listed = await cluster.api.list<Pod>({ resource: 'pods', namespace: e.namespace }, { labelSelector: e.selector, fieldSelector: `spec.nodeName=${e.node}` });
  const pods = listed.items.filter((p) => !p.metadata.deletionTimestamp);
  if (pods.length !== 1) return { problem: `${pods.length} pods match ${e.selector} on ${e.node}, not one` };
  const pod = pods[0]!;
  const container = e.container ?? pod.spec.containers[0]?.name ?? '';
  try {
    return { text: await cluster.edgeFile(e.node, pod.metadata.uid ?? '', container, e.path) };
  } catch (err) {
    return { problem: `cannot read ${e.path} of ${pod.metadata.name}/${container}: ${(err as Error).message}` };
  }
}

/** What the looks of one run share: the writes acknowledged so far. */
export interface Probes {
  writes: WriteProbe;
}

async function readEtcd(cluster: ScenarioCluster, consistency: 'linearizable' | 'serializable') {
  if (!cluster.etcd) throw new Error('this cluster runs no etcd');
  return cluster.etcd.read(consistency);
}

function writesOf(probes: Probes | undefined): WriteProbe {
  if (!probes) throw new Error('no write probe in this run');
  return probes.writes;
}

async function judge(cluster: ScenarioCluster, e: Expectation, probes?: Probes): Promise<Verdict> {
  switch (e.kind) {
    case 'pods':
      return judgePods(e, await viewOf(cluster, e));
    case 'node':
      return judgeNode(e, await find(() => cluster.api.get<Node>({ resource: 'nodes', name: e.node })));
    case 'deployment':
      return judgeDeployment(e, await find(() => cluster.api.get<Deployment>({ resource: 'deployments', group: 'apps', namespace: e.namespace, name: e.name })));
    case 'connection':
      return judgeConnection(e, await cluster.edgeConnection(e.node));
    case 'rejected':
      return judgeRejection(e, await attempt(cluster, e));
    case 'file':
      return judgeFile(e, await readPodFile(cluster, e));
    case 'service':
      return checkService(cluster, e);
    case 'write':
      return judgeWrite(e, await writesOf(probes).write(cluster.api));
    case 'written':
      return judgeWritten(await writesOf(probes).missing(cluster.api));
    case 'read':
      return judgeRead(e, await readEtcd(cluster, e.consistency));
    case 'leaders':
      return judgeLeaders(e, await severalClouds(cluster).leadership());
  }
}

/** Looks once at what the expectation is about; a part that does not answer makes it not hold. `probes`: the run's, for write and written. */
export async function check(cluster: ScenarioCluster, e: Expectation, probes?: Probes): Promise<Verdict> {
  try {
    return await judge(cluster, e, probes);
  } catch (err) {
    return { ok: false, seen: `no answer: ${problem(err)}` };
  }
}

export type CloudView = Glimpse['cloud'];

/** The nodes and pods as the cloud has them; undefined when it does not answer. */
export function cloudView(cluster: ScenarioCluster): Promise<CloudView> {
  return Promise.all([cluster.api.list<Node>({ resource: 'nodes' }), cluster.api.list<Pod>({ resource: 'pods' })]).then(
    ([nodes, pods]) => ({ nodes: nodes.items, pods: pods.items }),
    () => undefined,
  );
}

/** Every node as the cloud sees it (`cloud`: how to look) and as each edge does (but those in `unasked`), for the timeline. */
export async function glimpse(cluster: ScenarioCluster, unasked: ReadonlySet<string> = new Set(), cloudLook: () => Promise<CloudView> = () => cloudView(cluster)): Promise<Glimpse> {
  const cloud = cloudLook();
  const edges = await Promise.all(
    cluster.nodes.filter((n) => !unasked.has(n)).map(async (n) => {
      const [pods, connection] = await Promise.all([cluster.edgePods(n).catch(() => undefined), cluster.edgeConnection(n).catch(() => undefined)]);
      return [n, { ...(pods && { pods }), ...(connection && { connection }) }] as const;
    }),
  );
  const seen: Glimpse = { edges: new Map(edges) };
  const cloudView = await cloud;
  if (cloudView) seen.cloud = cloudView;
  return seen;
}
