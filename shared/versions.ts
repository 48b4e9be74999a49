/** The Kubernetes version kedge speaks: the apiserver's gitVersion and every kubelet's (edges' and the cloud's node). */
export const KUBE_VERSION = 'v1.32.4-kedge';

/** kedge's own version, as its runtimes report it (`sim://0.1.0`, the cloud node's `kedge://0.1.0`). */
export const KEDGE_VERSION = '0.1.0';
