import type { DaemonSet } from '../../../shared/daemonset-types.js';
import type { ApiClient } from '../../client/client.js';
import { createIfAbsent } from './bootstrap.js';

/** The RuntimeClass (and its handler) whose containers an edge runs as its own built-in component of the container's name. */
export const AGENT_RUNTIME_CLASS = 'kedge-agent';

/** The agents every edge runs in kube-system, as kube-proxy and a CNI plugin's DaemonSets. */
export const KUBE_SYSTEM_AGENTS = ['kube-proxy', 'kedge-cni'] as const;

/**
 * The DaemonSet of one edge agent: one pod per node, on the node's network, run by the
 * `kedge-agent` runtime as that edge's built-in component. Only the DaemonSet's default
 * tolerations (added by its controller), so none lands on the tainted control-plane node. Pure.
 */
export function agentDaemonSet(name: string): DaemonSet {
  const labels = { 'k8s-app': name };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'kube-system', labels },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { hostNetwork: true, runtimeClassName: AGENT_RUNTIME_CLASS, containers: [{ name, image: `kedge/${name}` }] },
      },
    },
  };
}

/**
 * Creates the kube-system DaemonSets of the edge agents that do not exist yet. Idempotent; run
 * at every start of `kedge cloud`: one that exists is left as it is (a user may have changed it).
 */
export async function ensureAgentDaemonSets(client: ApiClient): Promise<void> {
  for (const name of KUBE_SYSTEM_AGENTS) await createIfAbsent(client, { resource: 'daemonsets', group: 'apps', namespace: 'kube-system' }, agentDaemonSet(name));
}
