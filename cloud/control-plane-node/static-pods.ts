import { createHash } from 'node:crypto';
import type { Pod } from '../../shared/types.js';
import { KEDGE_VERSION } from '../../shared/versions.js';
import { APISERVER, BROKER, HUB, STORE } from '../components/cloud-parts.js';
import { CONTROLLER_MANAGER, SCHEDULER } from '../components/control-plane.js';

/** A container of a static pod: the cloud component it stands for. */
export interface StaticContainer {
  name: string;
  /** The ComponentSet name whose state is the container's readiness. */
  component: string;
}

/** A static pod manifest, as kubeadm writes them to /etc/kubernetes/manifests: the cloud's components as pods. */
export interface StaticPod {
  /** The manifest's name: the mirror pod is `<name>-<node>`. */
  name: string;
  containers: StaticContainer[];
}

/**
 * The cloud's parts as kubeadm's control-plane static pods (etcd is the store), plus the hub.
 * The embedded broker runs in the hub's pod as a second container, `broker`; an external
 * broker runs elsewhere and is no container here.
 */
export function staticPods(embeddedBroker: boolean): StaticPod[] {
  const one = (name: string, component: string): StaticPod => ({ name, containers: [{ name, component }] });
  const hub: StaticPod = { name: 'kedge-hub', containers: [{ name: 'kedge-hub', component: HUB }, ...(embeddedBroker ? [{ name: 'broker', component: BROKER }] : [])] };
  return [one('etcd', STORE), one('kube-apiserver', APISERVER), one('kube-controller-manager', CONTROLLER_MANAGER), one('kube-scheduler', SCHEDULER), hub];
}

export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
export const HASH_ANNOTATION = 'kubernetes.io/config.hash';
const SOURCE_ANNOTATION = 'kubernetes.io/config.source';
const SEEN_ANNOTATION = 'kubernetes.io/config.seen';
/** kubectl logs and exec pick this container when none is named. */
const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

/** The node a mirror pod is bound to and owned by. */
export interface MirrorNode {
  name: string;
  uid: string;
  /** Its address: a hostNetwork pod's IP. */
  address: string;
}

/** The mirror pod's name: `<manifest>-<node>`, as the kubelet names a static pod. */
export function mirrorPodName(manifest: Pick<StaticPod, 'name'>, node: string): string {
  return `${manifest.name}-${node.toLowerCase()}`;
}

/** A static container's image: the kedge part it is, at kedge's version. */
export function staticImage(container: string): string {
  return `kedge/${container}:${KEDGE_VERSION}`;
}

/** The static pod's spec, as its manifest would say it. */
function podSpec(manifest: StaticPod, node: string): Pod['spec'] {
  return {
    nodeName: node,
    hostNetwork: true,
    priorityClassName: 'system-node-critical',
    priority: 2000001000,
    // As the kubelet gives every file pod: never evicted for a taint.
    tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
    containers: manifest.containers.map((c) => ({ name: c.name, image: staticImage(c.name) })),
  };
}

/**
 * The mirror pod of one static pod, as the kubelet creates it: `kubernetes.io/config.*`
 * annotations (the hash over the manifest and its node, the source `file`, when it was seen),
 * kubeadm's labels, owned by the Node. Without status (see mirror-status.ts). Pure.
 */
export function mirrorPod(manifest: StaticPod, node: MirrorNode, seenAt: number): Pod {
  const spec = podSpec(manifest, node.name);
  const hash = createHash('md5').update(JSON.stringify([spec, `host:${node.name}`, `file:${manifest.name}`])).digest('hex');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: mirrorPodName(manifest, node.name),
      namespace: 'kube-system',
      labels: { component: manifest.name, tier: 'control-plane' },
      annotations: {
        [HASH_ANNOTATION]: hash,
        [MIRROR_ANNOTATION]: hash,
        [SOURCE_ANNOTATION]: 'file',
        [SEEN_ANNOTATION]: new Date(seenAt).toISOString(),
        ...(manifest.containers.length > 1 ? { [DEFAULT_CONTAINER_ANNOTATION]: manifest.containers[0]!.name } : {}),
      },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec,
  };
}
