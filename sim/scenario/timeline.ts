import type { Node, Pod } from '../../shared/types.js';
import { nodeReady, podPhase, type EdgeConnection } from './judge.js';
import type { ReadyStatus } from './types.js';

/** One node at one moment, as the cloud sees it and as the edge does; undefined where one did not answer. */
export interface NodeSample {
  ready?: ReadyStatus;
  /** Pods Running on the node, as the cloud sees them. */
  cloudRunning?: number;
  /** Pods Running, as the edge's local API shows them. */
  edgeRunning?: number;
  /** Whether the edge says it is connected. */
  connected?: boolean;
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

const running = (pods: readonly Pod[], node?: string): number =>
  pods.filter((p) => podPhase(p) === 'Running' && (node === undefined || p.spec.nodeName === node)).length;

/** Each node's sample from one glimpse. Pure. */
export function summarize(nodes: readonly string[], glimpse: Glimpse): Record<string, NodeSample> {
  const out: Record<string, NodeSample> = {};
  for (const name of nodes) {
    const sample: NodeSample = {};
    const { cloud } = glimpse;
    if (cloud) {
      const ready = nodeReady(cloud.nodes.find((n) => n.metadata.name === name));
      if (ready) sample.ready = ready;
      sample.cloudRunning = running(cloud.pods, name);
    }
    const edge = glimpse.edges.get(name);
    if (edge?.pods) sample.edgeRunning = running(edge.pods);
    if (edge?.connection) sample.connected = edge.connection.connected;
    out[name] = sample;
  }
  return out;
}
