import type { Node, Pod } from '../../shared/types.js';
import { nodeReady, podPhase, type EdgeConnection } from './judge.js';
import type { ReadyStatus } from './types.js';

/**
 * An edge a step has taken down: `rebooting`, its node is down and nothing runs on it;
 * `restarting` (a crash or a restart), only its process is down and its containers carry on.
 */
export type EdgeDown = 'rebooting' | 'restarting';

/** One node at one moment, as the cloud sees it and as the edge does; undefined where one did not answer. */
export interface NodeSample {
  ready?: ReadyStatus;
  /** Pods Running on the node, as the cloud sees them. */
  cloudRunning?: number;
  /** Pods Running, as the edge's local API shows them; 0 while its node reboots. */
  edgeRunning?: number;
  /** Whether the edge says it is connected. */
  connected?: boolean;
  /** Set while a step has the edge down (its local API is not asked then). */
  edgeDown?: EdgeDown;
}

export interface Sample {
  /** Seconds of cluster time since the run started. */
  at: number;
  nodes: Record<string, NodeSample>;
}

/** What one round of looking brought back; a missing part did not answer. */
export interface Glimpse {
  cloud?: { nodes: Node[]; pods: Pod[] };
  edges: Map<string, { pods?: Pod[]; connection?: EdgeConnection }>;
}

/** The workload's pods Running (on `node`): the kube-system agents every edge runs are left out of the chart. */
const running = (pods: readonly Pod[], node?: string): number =>
  pods.filter((p) => p.metadata.namespace !== 'kube-system' && podPhase(p) === 'Running' && (node === undefined || p.spec.nodeName === node)).length;

function edgeSide(glimpse: Glimpse, name: string, down: EdgeDown | undefined): NodeSample {
  if (down) return { edgeDown: down, ...(down === 'rebooting' && { edgeRunning: 0 }) };
  const edge = glimpse.edges.get(name);
  const sample: NodeSample = {};
  if (edge?.pods) sample.edgeRunning = running(edge.pods);
  if (edge?.connection) sample.connected = edge.connection.connected;
  return sample;
}

/** Each node's sample from one glimpse, with the edges a step has down as of the look. Pure. */
export function summarize(nodes: readonly string[], glimpse: Glimpse, down: ReadonlyMap<string, EdgeDown> = new Map()): Record<string, NodeSample> {
  const out: Record<string, NodeSample> = {};
  for (const name of nodes) {
    const sample: NodeSample = {};
    const { cloud } = glimpse;
    if (cloud) {
      const ready = nodeReady(cloud.nodes.find((n) => n.metadata.name === name));
      if (ready) sample.ready = ready;
      sample.cloudRunning = running(cloud.pods, name);
    }
    out[name] = { ...sample, ...edgeSide(glimpse, name, down.get(name)) };
  }
  return out;
}
