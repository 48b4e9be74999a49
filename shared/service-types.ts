import type { KubeObject } from './types.js';

/** core/v1 Service and Endpoints: the subset kedge serves and the Endpoints controller writes. */

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port: number;
  /** A port number on the pod, or the name of a container port; defaults to `port`. */
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  type?: ServiceType;
  /** Pods with all these labels back the service; none means its Endpoints are managed by hand. */
  selector?: Record<string, string>;
  ports?: ServicePort[];
  /** An address from the service range, "None" for a headless service, or "" to be allocated. */
  clusterIP?: string;
  clusterIPs?: string[];
  externalIPs?: string[];
  externalName?: string;
  sessionAffinity?: 'None' | 'ClientIP';
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  ipFamilies?: ('IPv4' | 'IPv6')[];
  ipFamilyPolicy?: 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';
  internalTrafficPolicy?: 'Cluster' | 'Local';
  externalTrafficPolicy?: 'Cluster' | 'Local';
  publishNotReadyAddresses?: boolean;
  allocateLoadBalancerNodePorts?: boolean;
  [field: string]: unknown;
}

export interface ServiceStatus {
  loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] };
  conditions?: unknown[];
}

export interface Service extends KubeObject {
  spec: ServiceSpec;
  status?: ServiceStatus;
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
}

/** Addresses that all offer the same ports. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}
