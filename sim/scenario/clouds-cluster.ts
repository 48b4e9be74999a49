import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import type { Pod } from '../../shared/types.js';
import { startCloudCluster, type CloudCluster } from '../clouds/cloud-cluster.js';
import { leadingCloud } from '../clouds/leaders.js';
import type { ScenarioClouds } from './cloud-step.js';
import type { DemoClusterOptions, ScenarioCluster } from './cluster.js';
import { readContainerFile } from './container-file.js';
import { actOnEdgeComponent } from './edge-component.js';
import { httpGet } from './http-get.js';
import type { EdgeConnection } from './judge.js';
import type { CloudStep } from './types.js';

/** A local API or a cloud answers within this long, or counts as not answering. */
const TIMEOUT_MS = 2_000;
const HTTP_TIMEOUT_MS = 1_000;
/** How long (real time) the clouds and edges may take to come up. */
const READY_TIMEOUT_MS = 60_000;

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export interface CloudsClusterOptions extends DemoClusterOptions {
  clouds: number;
  /** Members of the etcd the clouds share (default 1). */
  etcdMembers?: number;
}

/** Several clouds on one etcd and edges given every cloud's broker, as a ScenarioCluster (admin user; edges have no link proxies). */
export async function startCloudsCluster(o: CloudsClusterOptions): Promise<ScenarioCluster> {
  const c = await startCloudCluster({
    clouds: o.clouds, edges: o.nodes, etcdMembers: o.etcdMembers ?? 1, timeScale: o.timeScale, clock: o.clock, logger: o.logger,
    dir: o.dataDir, readyTimeoutMs: READY_TIMEOUT_MS, ...(o.onLine && { onLine: o.onLine }),
  });
  try {
    const token = (await readCredentials(c.clouds.members[0]!.dataDir))?.admin ?? '';
    return {
      api: c.api,
      nodes: c.nodes,
      link() {
        throw new Error('with several clouds the edges have no link proxies: cut and heal are for one cloud');
      },
      shapeLink() {
        throw new Error('with several clouds the edges have no link proxies: shape and flap are for one cloud');
      },
      linkBytes() {
        throw new Error('with several clouds the edges have no link proxies: bytes are measured on one cloud');
      },
      async restartEdge(node, how) {
        await c.edges.edges.restartProcess(node, how);
      },
      component: (name, action) => componentOnAnyCloud(c, token, name, action),
      edgeComponent: (node, name, action) => actOnEdgeComponent(c.edges.localApiUrl(node), c.edges.dataDir(node), name, action),
      httpGet: (url) => httpGet(url, HTTP_TIMEOUT_MS),
      edgePods: async (node) => (await getJson<{ items: Pod[] }>(`${c.edges.localApiUrl(node)}/pods`)).items,
      edgeConnection: (node) => getJson<EdgeConnection>(`${c.edges.localApiUrl(node)}/connection`),
      edgeFile: (node, podUid, container, path) => readContainerFile(c.edges.dataDir(node), podUid, container, path),
      stop: () => c.close(),
      clouds: scenarioClouds(c),
    };
  } catch (err) {
    await c.close();
    throw err;
  }
}

/** `kedge component stop|start` acts on the cloud it is sent to: here the first that runs. */
async function componentOnAnyCloud(c: CloudCluster, token: string, name: string, action: 'stop' | 'start'): Promise<void> {
  const cloud = c.clouds.members.find((_, i) => c.clouds.isRunning(i));
  if (!cloud) throw new Error('no cloud runs');
  const res = await fetch(`${cloud.apiUrl}/kedge/v1/components/${encodeURIComponent(name)}/${action}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`${action} ${name} on ${cloud.name}: ${((await res.json().catch(() => ({}))) as { message?: string }).message ?? `HTTP ${res.status}`}`);
}

function scenarioClouds(c: CloudCluster): ScenarioClouds {
  let killed: string | undefined;
  const running = (): string[] => c.clouds.members.filter((_, i) => c.clouds.isRunning(i)).map((m) => m.name);
  const resolveTarget = async (step: CloudStep): Promise<string> => {
    if (step.target === 'killed') {
      if (!killed) throw new Error('no cloud was killed before this step');
      return killed;
    }
    if (step.target !== 'leader') return step.target;
    const leader = leadingCloud(await c.leaders());
    if (!leader) throw new Error('no cloud holds a Lease');
    return leader;
  };
  return {
    names: c.clouds.members.map((m) => m.name),
    async act(step) {
      const name = await resolveTarget(step);
      const held = Object.entries(await c.leaders()).filter(([, holder]) => holder === name).map(([lease]) => lease);
      if (step.action === 'kill') {
        await c.clouds.kill(c.indexOf(name));
        killed = name;
        return `killed ${name} (kill -9), which held ${held.length ? held.join(', ') : 'no Lease'}`;
      }
      await c.clouds.start(c.indexOf(name));
      return `started ${name} again`;
    },
    leadership: async () => ({ leaders: await c.leaders(), running: running(), ...(killed && { killed }) }),
  };
}
