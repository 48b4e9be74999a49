import type { KubeObject, Pod } from '../../shared/types.js';
import type { LocalCache } from '../../edge/metamanager/local-cache.js';
import type { PodStatusInput } from '../../edge/edged/pod-status.js';
import type { ContainerInfo, Sandbox } from '../../edge/runtime/runtime.js';

/** A pod bound to node `edge-1`; `patch` overrides spec fields. */
export function pod(name: string, uid: string, spec: Partial<Pod['spec']> = {}, annotations?: Record<string, string>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid, resourceVersion: '1', ...(annotations ? { annotations } : {}) },
    spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
  };
}

export function sandbox(podUid: string, id = `sb-${podUid}`, state: Sandbox['state'] = 'ready', createdAt = 0): Sandbox {
  return { id, podUid, name: podUid, namespace: 'default', ip: '10.244.1.2', createdAt, state };
}

export function container(podUid: string, fields: Partial<ContainerInfo> = {}): ContainerInfo {
  return {
    id: `c-${podUid}-${fields.name ?? 'app'}-${fields.attempt ?? 0}`,
    sandboxId: `sb-${podUid}`,
    podUid,
    name: 'app',
    attempt: 0,
    image: 'nginx:1.27',
    state: 'running',
    createdAt: 0,
    startedAt: 0,
    ready: true,
    ...fields,
  };
}

/** What derivePodStatus reads, for pod `p` (uid u1) in its ready sandbox, at `now`; `fields` override. */
export function statusInput(now: number, fields: Partial<PodStatusInput> = {}): PodStatusInput {
  return { pod: pod('p', 'u1'), sandbox: sandbox('u1'), containers: [], runtimeName: 'sim', hostIP: '127.0.0.1', now, ...fields };
}

/** Puts any object (a Pod, a ConfigMap, …) into an edge's cache as the cloud would send it. */
export function holdIn(cache: Pick<LocalCache, 'apply'>, object: KubeObject & { kind: string }): void {
  const { name = '', namespace, uid = '', resourceVersion } = object.metadata;
  cache.apply({ kind: object.kind, name, uid, ...(namespace ? { namespace } : {}), ...(resourceVersion ? { resourceVersion } : {}) }, object as never);
}
