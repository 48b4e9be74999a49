import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { startCloudCluster, type CloudCluster } from './clouds/cloud-cluster.js';

export interface CloudsDemoOptions {
  /** `kedge cloud` processes, cloud-1 … cloud-N. */
  clouds: number;
  /** Edges, edge-1 … edge-N, each given every cloud's broker. */
  nodes: number;
  /** Members of the etcd the demo starts for the clouds. */
  etcdMembers: number;
  /** Held by the caller; the clouds and edges keep their data under `<dataDir>/several-clouds/`. */
  dataDir: string;
  timeScale: number;
  clock: Clock;
  logger: Logger;
  onLine?: (line: string) => void;
}

/** Where a demo of several clouds keeps its clouds' and edges' data dirs. */
export const cloudsDemoDir = (dataDir: string): string => join(resolve(dataDir), 'several-clouds');

/**
 * `kedge demo --clouds N`: an etcd of its own (its data removed when the demo stops), N clouds on
 * it and the edges given every cloud's broker. Each start is a fresh cluster: the previous
 * run's data dirs are removed first, since the etcd that held their objects is gone.
 */
export async function startCloudsDemo(o: CloudsDemoOptions): Promise<CloudCluster> {
  const dir = cloudsDemoDir(o.dataDir);
  await rm(dir, { recursive: true, force: true });
  return startCloudCluster({
    clouds: o.clouds, edges: o.nodes, etcdMembers: o.etcdMembers, timeScale: o.timeScale, clock: o.clock, logger: o.logger, dir,
    ...(o.onLine && { onLine: o.onLine }),
  });
}

/** What the demo prints once it is up: each cloud, and what to try (`leader`: the cloud holding the Leases). */
export function cloudsDemoBanner(c: CloudCluster, dataDir: string, leader: string): string {
  const leading = Math.max(0, c.indexOf(leader));
  const kubeconfig = (i: number): string => join(c.clouds.members[i]!.dataDir, 'kubeconfig');
  const pid = (i: number): string => String(c.clouds.process(i)?.child.pid ?? '?');
  return [
    `kedge demo ready: ${c.clouds.members.length} clouds on one etcd (${c.etcd.endpoints.length} member${c.etcd.endpoints.length === 1 ? '' : 's'}: ${c.etcd.endpoints.join(',')}), ${c.nodes.length} edges given every cloud's broker`,
    `  Data dir: ${cloudsDemoDir(dataDir)} (clouds/cloud-N, edges/edge-N)`,
    ...c.clouds.members.map((m, i) => `  ${m.name} (pid ${pid(i)}): API ${m.apiUrl}, broker ${m.brokerUrl}, kubeconfig ${kubeconfig(i)}`),
    `  kubectl --kubeconfig ${kubeconfig(0)} get leases -n kube-system    # which cloud leads (HOLDER: <host>_<uuid>, the uuid in <cloud data dir>/leader-election-id)`,
    `  kubectl --kubeconfig ${kubeconfig(1)} get nodes -o wide           # any cloud answers`,
    `  kill -9 ${pid(leading)}    # ${leader}, which leads: the others take its Leases over once they run out (15 s, divided by --time-scale)`,
    'Ctrl-C stops everything.',
    '',
  ].join('\n');
}
