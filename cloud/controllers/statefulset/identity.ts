import type { PodTemplateSpec } from '../../../shared/apps-types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../../shared/daemonset-types.js';
import { POD_INDEX_LABEL, POD_NAME_LABEL, type StatefulSet } from '../../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import type { KubeObject, OwnerReference, Pod } from '../../../shared/types.js';
import { controllerRefTo } from '../controller-ref.js';

/** A StatefulSet pod's stable identity: its name, labels, hostname and claims (stateful_set_utils.go). Pure. */

const ORDINAL = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: `web-3` → ['web', 3]; undefined for a name without an ordinal. */
export function parentAndOrdinal(podName: string | undefined): { parent: string; ordinal: number } | undefined {
  const m = ORDINAL.exec(podName ?? '');
  return m ? { parent: m[1]!, ordinal: Number(m[2]) } : undefined;
}

export const podName = (sts: StatefulSet, ordinal: number): string => `${sts.metadata.name}-${ordinal}`;
export const claimName = (template: string, sts: StatefulSet, ordinal: number): string => `${template}-${podName(sts, ordinal)}`;
export const podRevision = (pod: Pod): string | undefined => pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];

/** newStatefulSetPod + setPodRevision: the template's pod named for its ordinal, with its claims mounted and the revision label. */
export function statefulPod(sts: StatefulSet, template: PodTemplateSpec, ordinal: number, revision: string): Pod {
  const meta = template.metadata ?? {};
  const name = podName(sts, ordinal);
  const labels = { ...meta.labels, [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [CONTROLLER_REVISION_HASH_LABEL]: revision };
  const spec = structuredClone(template.spec);
  spec.hostname = name;
  if (sts.spec.serviceName) spec.subdomain = sts.spec.serviceName;
  spec.volumes = withClaimVolumes(sts, ordinal, (spec.volumes as { name: string }[] | undefined) ?? []);
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: sts.metadata.namespace, labels, ownerReferences: [controllerRefTo(sts, 'apps/v1', 'StatefulSet')] },
    spec,
  };
  if (meta.annotations) pod.metadata.annotations = { ...meta.annotations };
  if (meta.finalizers) pod.metadata.finalizers = [...meta.finalizers];
  return pod;
}

/** updateStorage: a volume per claim template, named as the template, in place of a template volume of that name. */
function withClaimVolumes(sts: StatefulSet, ordinal: number, volumes: { name: string }[]): { name: string }[] {
  const templates = sts.spec.volumeClaimTemplates ?? [];
  const claimed = new Set(templates.map((t) => t.metadata.name));
  const claims = templates.map((t) => ({ name: t.metadata.name!, persistentVolumeClaim: { claimName: claimName(t.metadata.name!, sts, ordinal) } }));
  return [...claims, ...volumes.filter((v) => !claimed.has(v.name))];
}

/** getPersistentVolumeClaims: one claim per template, labelled as the template plus the selector's matchLabels. */
export function statefulClaims(sts: StatefulSet, ordinal: number, owners: OwnerReference[]): PersistentVolumeClaim[] {
  return (sts.spec.volumeClaimTemplates ?? []).map((t) => {
    const claim: PersistentVolumeClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claimName(t.metadata.name!, sts, ordinal), namespace: sts.metadata.namespace, labels: { ...t.metadata.labels, ...sts.spec.selector.matchLabels } },
      spec: structuredClone(t.spec),
    };
    if (t.metadata.annotations) claim.metadata.annotations = { ...t.metadata.annotations };
    if (owners.length > 0) claim.metadata.ownerReferences = owners;
    return claim;
  });
}

const plainRef = (owner: KubeObject, apiVersion: string, kind: string): OwnerReference => ({ apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid! });

/**
 * updateClaimOwnerRefForSetAndPod: the owners persistentVolumeClaimRetentionPolicy wants on an
 * ordinal's claims: the StatefulSet when whenDeleted is Delete (while the ordinal is in range),
 * the pod when whenScaled is Delete and the ordinal has been scaled away.
 */
export function wantedClaimOwners(sts: StatefulSet, pod: Pod | undefined, inRange: boolean): OwnerReference[] {
  const policy = sts.spec.persistentVolumeClaimRetentionPolicy ?? {};
  const owners: OwnerReference[] = [];
  const scaledAway = !inRange && policy.whenScaled === 'Delete' && pod?.metadata.uid !== undefined;
  if (policy.whenDeleted === 'Delete' && !scaledAway) owners.push(plainRef(sts, 'apps/v1', 'StatefulSet'));
  if (scaledAway) owners.push(plainRef(pod!, 'v1', 'Pod'));
  return owners;
}

/** The claim's owner references with the set's and pod's replaced by `wanted`; undefined when nothing changes. */
export function claimOwnersPatch(claim: PersistentVolumeClaim, sts: StatefulSet, pod: Pod | undefined, wanted: OwnerReference[]): OwnerReference[] | undefined {
  const ours = new Set([sts.metadata.uid, pod?.metadata.uid].filter((u) => u !== undefined));
  const current = claim.metadata.ownerReferences ?? [];
  const kept = current.filter((r) => !ours.has(r.uid));
  const has = current.filter((r) => ours.has(r.uid)).map((r) => r.uid).sort().join();
  if (has === wanted.map((r) => r.uid).sort().join()) return undefined;
  return [...kept, ...wanted];
}
