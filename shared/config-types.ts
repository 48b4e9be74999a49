import type { KubeObject, Toleration } from './types.js';

/**
 * core/v1 ConfigMap and Secret, coordination.k8s.io/v1 Lease and node.k8s.io/v1 RuntimeClass:
 * the shapes kedge stores and serves.
 */

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  /** Values are base64, as in JSON. */
  binaryData?: Record<string, string>;
  /** Once true, data and binaryData can no longer change (nor can this go back to false). */
  immutable?: boolean;
}

/** Opaque unless the type says otherwise; the well-known types require certain keys. */
export const SECRET_TYPE_OPAQUE = 'Opaque';

export interface Secret extends KubeObject {
  /** Values are base64, as in JSON. */
  data?: Record<string, string>;
  /** Write-only convenience: plain strings merged into `data` on write, never stored. */
  stringData?: Record<string, string>;
  type?: string;
  immutable?: boolean;
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

/** A named, renewable claim: node heartbeats live in kube-node-lease, one Lease per node. */
export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface RuntimeClass extends KubeObject {
  /** The runtime an edge runs the pod with: "sim" or "process" in kedge. */
  handler: string;
  /** Resources a pod of this class uses beyond its containers' (copied to pod.spec.overhead). */
  overhead?: { podFixed?: Record<string, string> };
  /** Merged into the pod's nodeSelector and tolerations at admission. */
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}
