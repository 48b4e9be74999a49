import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { ApiClient } from '../cloud/client/client.js';
import type { Clock } from '../shared/clock.js';
import { isKedgeError, KedgeError } from '../shared/errors.js';
import type { Node, Pod } from '../shared/types.js';

/** The label every pod a fleet creates carries, valued with the fleet's name prefix. */
export const FLEET_LABEL = 'kedge.io/fleet';

export interface KubeconfigAccess {
  server: string;
  token: string;
  /** The CA to verify an https server against (certificate-authority-data). */
  ca?: string;
}

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: { name: string; context?: { cluster?: string; user?: string } }[];
  clusters?: { name: string; cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  users?: { name: string; user?: { token?: string } }[];
}

/** The server and bearer token of a kubeconfig's current context (the cloud's admin kubeconfig). */
export async function readKubeconfig(path: string): Promise<KubeconfigAccess> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new KedgeError('NotFound', `cannot read kubeconfig ${path}: ${(err as Error).message}`);
  }
  const config = (parse(text) ?? {}) as KubeconfigFile;
  const contexts = config.contexts ?? [];
  const context = (contexts.find((c) => c.name === config['current-context']) ?? contexts[0])?.context;
  const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const server = cluster?.server;
  const token = config.users?.find((u) => u.name === context?.user)?.user?.token;
  if (!server || !token) throw new KedgeError('Invalid', `kubeconfig ${path} names no server and bearer token for its current context`);
  const caData = cluster['certificate-authority-data'];
  return { server, token, ...(caData ? { ca: Buffer.from(caData, 'base64').toString('utf8') } : {}) };
}

/** An unbound pod for the scheduler to place: `<node>-p<i>`, labelled with the fleet. */
export function fleetPod(name: string, prefix: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { [FLEET_LABEL]: prefix } },
    spec: { containers: [{ name: 'main', image: 'kedge.io/hollow:1' }] },
  };
}

export function fleetPodNames(nodes: string[], podsPerNode: number): string[] {
  return nodes.flatMap((node) => Array.from({ length: podsPerNode }, (_, i) => `${node}-p${i + 1}`));
}

const isReady = (node: Node): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Polls the cloud until every named node is Ready; reports the count whenever it changes. */
export async function waitForReadyNodes(
  api: ApiClient,
  names: string[],
  o: { clock: Clock; timeoutMs: number; pollMs?: number; onProgress?: (ready: number) => void; signal?: AbortSignal },
): Promise<void> {
  const wanted = new Set(names);
  const deadline = o.clock.now() + o.timeoutMs;
  let last = -1;
  for (;;) {
    const nodes = await api.list<Node>({ resource: 'nodes' });
    const ready = nodes.items.filter((n) => wanted.has(n.metadata.name ?? '') && isReady(n)).length;
    if (ready !== last) o.onProgress?.((last = ready));
    if (ready === wanted.size) return;
    if (o.clock.now() > deadline) throw new KedgeError('Timeout', `only ${ready} of ${wanted.size} nodes Ready after ${o.timeoutMs} ms`);
    await o.clock.sleep(o.pollMs ?? 250, o.signal);
  }
}

/**
 * Creates the pods with at most `concurrency` requests in flight; a pod that already exists
 * (a fleet started again against the same cloud) counts as done. Resolves with how many were new.
 */
export async function createFleetPods(
  api: ApiClient,
  pods: Pod[],
  o: { concurrency?: number; onProgress?: (done: number, total: number) => void },
): Promise<number> {
  let next = 0;
  let done = 0;
  let created = 0;
  const worker = async (): Promise<void> => {
    while (next < pods.length) {
      const pod = pods[next++]!;
      try {
        await api.create({ resource: 'pods', namespace: 'default', name: pod.metadata.name! }, pod);
        created++;
      } catch (err) {
        if (!isKedgeError(err, 'AlreadyExists')) throw err;
      }
      o.onProgress?.(++done, pods.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(pods.length, Math.max(1, o.concurrency ?? 32)) }, worker));
  return created;
}
