import type { Service } from '../../shared/service-types.js';
import type { Node, Pod } from '../../shared/types.js';
import type { ScenarioCluster } from './cluster.js';
import type { Verdict } from './judge.js';
import { judgeService, resolvePodRef, type Reply, type ServiceLook } from './judge-service.js';
import type { ServiceExpectation } from './types.js';

/** The node's InternalIP, as its Node object has it. */
function internalIp(node: Node): string {
  const address = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  if (!address) throw new Error(`node ${node.metadata.name} has no InternalIP`);
  return address;
}

/** The nodePort of the Service's port `which` (a number or a name), or of its first port with one. */
function nodePortOf(service: Service, which: number | string | undefined): number {
  const ports = service.spec.ports ?? [];
  const port = which === undefined ? ports.find((p) => p.nodePort) : ports.find((p) => p.port === which || p.name === which);
  if (which !== undefined && !port) throw new Error(`service ${service.metadata.name} has no port ${which} (${ports.map((p) => p.name ?? p.port).join(', ')})`);
  if (!port?.nodePort) throw new Error(`service ${service.metadata.name} has no nodePort (type ${service.spec.type ?? 'ClusterIP'})`);
  return port.nodePort;
}

const hostOf = (ip: string): string => (ip.includes(':') ? `[${ip}]` : ip);

/** Sends the expectation's GETs one after another, each on its own connection, and judges the answers. */
export async function checkService(cluster: ScenarioCluster, e: ServiceExpectation): Promise<Verdict> {
  const [node, service] = await Promise.all([
    cluster.api.get<Node>({ resource: 'nodes', name: e.node }),
    cluster.api.get<Service>({ resource: 'services', namespace: e.namespace, name: e.service }),
  ]);
  const url = `http://${hostOf(internalIp(node))}:${nodePortOf(service, e.port)}${e.path}`;
  const replies: Reply[] = [];
  for (let i = 0; i < e.requests; i++) replies.push(await cluster.httpGet(url));
  const look: ServiceLook = { url, replies };
  if (e.includes || e.excludes) {
    const pods = (await cluster.api.list<Pod>({ resource: 'pods', namespace: e.namespace })).items;
    if (e.includes) look.includes = resolvePodRef(e.includes, pods);
    if (e.excludes) look.excludes = resolvePodRef(e.excludes, pods);
  }
  return judgeService(e, look);
}
