import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject, Node } from '../../../shared/types.js';
import { nodeNameOf } from '../auth/node-authz.js';
import { stableJson } from '../../client/object-meta.js';
import type { AdmissionContext, ResourceDef } from '../kinds/registry.js';

/**
 * kube's NodeRestriction admission plugin for a node's writes to Node objects, whatever the
 * verb (create, update, every patch type, apply, the status subresource): a node registers
 * with only the labels a kubelet may set on itself, and afterwards may not change its taints,
 * `spec.unschedulable`, its ownerReferences or a label outside that set, so that it cannot
 * steer workloads to itself or away from where an admin sent them. Forbidden, with kube's
 * messages. kedge adds one rule: a node neither registers with nor changes its pod range
 * (spec.podCIDR/podCIDRs): the node-IPAM controller gives it one, unique in the cluster.
 * Requests from anyone but a node pass.
 */
export function restrictNodeWrites(def: ResourceDef, obj: KubeObject, ctx: AdmissionContext): void {
  if (def.group !== '' || def.resource !== 'nodes') return;
  const node = ctx.user && nodeNameOf(ctx.user);
  if (node === undefined) return;
  const name = obj.metadata.name ?? '';
  const refuse = (why: string): KedgeError => new KedgeError('Forbidden', `nodes "${name}" is forbidden: ${why}`, { details: { name, group: '', kind: 'nodes' } });
  if (name !== node) throw refuse(`node "${node}" is not allowed to modify node "${name}"`);
  const next = obj as Node;
  if (ctx.operation === 'create') {
    const forbidden = forbiddenLabels(modifiedLabels(next.metadata.labels, undefined));
    if (forbidden.length > 0) throw refuse(`node "${node}" is not allowed to set the following labels: ${forbidden.join(', ')}`);
    if (!same(next.spec?.podCIDRs, undefined)) throw refuse(`node "${node}" is not allowed to set podCIDR`);
    return;
  }
  const old = (ctx.old ?? { metadata: {} }) as Node;
  if (!same(next.spec?.taints, old.spec?.taints)) throw refuse(`node "${node}" is not allowed to modify taints`);
  if (!same(next.spec?.podCIDRs, old.spec?.podCIDRs)) throw refuse(`node "${node}" is not allowed to modify podCIDR`);
  if ((next.spec?.unschedulable ?? false) !== (old.spec?.unschedulable ?? false)) throw refuse(`node "${node}" is not allowed to modify unschedulable`);
  if (!same(next.metadata.ownerReferences, old.metadata.ownerReferences)) throw refuse(`node "${node}" is not allowed to modify ownerReferences`);
  const forbidden = forbiddenLabels(modifiedLabels(next.metadata.labels, old.metadata.labels));
  if (forbidden.length > 0) throw refuse(`is not allowed to modify labels: ${forbidden.join(', ')}`);
}

/** Equal as kube's semantic equality sees it: an empty list is no list. */
function same(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  const norm = (x: readonly unknown[] | undefined): string => (x === undefined || x.length === 0 ? '' : stableJson(x));
  return norm(a) === norm(b);
}

type Labels = Readonly<Record<string, string>> | undefined;

/** Keys added, removed or changed between two label sets. */
function modifiedLabels(a: Labels, b: Labels): string[] {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  return [...keys].filter((k) => a?.[k] !== b?.[k]);
}

/** The labels (sorted, as kube lists them) a node may not set: node-restriction ones, and kube's own that are not a kubelet's. */
function forbiddenLabels(keys: readonly string[]): string[] {
  return keys.filter((k) => inNamespace(k, NODE_RESTRICTION_NAMESPACE) || (isKubernetesLabel(k) && !isKubeletLabel(k))).sort();
}

const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';

/** The labels a kubelet sets on its own Node (k8s.io/kubelet's well-known labels). */
const kubeletLabels = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const kubeletLabelNamespaces = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

function isKubeletLabel(key: string): boolean {
  return kubeletLabels.has(key) || kubeletLabelNamespaces.some((ns) => inNamespace(key, ns));
}

function isKubernetesLabel(key: string): boolean {
  return inNamespace(key, 'kubernetes.io') || inNamespace(key, 'k8s.io');
}

/** Whether the key's prefix is `namespace` or a subdomain of it. */
function inNamespace(key: string, namespace: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? '' : key.slice(0, slash);
  return prefix === namespace || prefix.endsWith(`.${namespace}`);
}
