import type { KubeObject } from '../../shared/types.js';

/**
 * NodeSync (sync.kedge.io/v1, cluster-scoped, one per node, name = node): what the edge
 * acknowledged, per object uid — kedge's version of KubeEdge's ObjectSync, one object per
 * node instead of one per (node, object). Written by the cloud hub's ack ledger [SYNC-2].
 */
export interface AckedObject {
  kind: string;
  namespace?: string;
  name: string;
  resourceVersion?: string;
}

export interface NodeSync extends KubeObject {
  status?: {
    /** By object uid. */
    objects?: Record<string, AckedObject>;
  };
}

export const NODESYNC_GROUP = 'sync.kedge.io';
