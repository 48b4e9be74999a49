import type { Container, Pod } from './types.js';

/**
 * What a pod references by name in its own namespace, as kube's Node authorizer graph and the
 * kubelet's managers read it. Pure: the pod is never changed, and nothing is looked up.
 */

export type ReferencedKind = 'ConfigMap' | 'Secret' | 'PersistentVolumeClaim';

export interface PodReference {
  kind: ReferencedKind;
  /** In the pod's namespace. */
  name: string;
}

/** The volume sources that name another object (the other sources name none). */
interface VolumeRefs {
  configMap?: { name?: string };
  secret?: { secretName?: string };
  persistentVolumeClaim?: { claimName?: string };
  projected?: { sources?: { configMap?: { name?: string }; secret?: { name?: string } }[] };
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
const listOf = <T>(x: unknown): T[] => (Array.isArray(x) ? (x.filter(isRecord) as T[]) : []);

/** Every object `pod` references, each once, in the order first met (containers, then volumes, then imagePullSecrets). */
export function podReferences(pod: Pod): PodReference[] {
  const seen = new Map<string, PodReference>();
  const add = (kind: ReferencedKind, name: unknown): void => {
    if (typeof name !== 'string' || name === '') return;
    const key = `${kind}/${name}`;
    if (!seen.has(key)) seen.set(key, { kind, name });
  };
  const spec = pod.spec ?? { containers: [] };
  for (const container of allContainers(spec)) {
    for (const env of listOf<NonNullable<Container['env']>[number]>(container.env)) {
      add('ConfigMap', env.valueFrom?.configMapKeyRef?.name);
      add('Secret', env.valueFrom?.secretKeyRef?.name);
    }
    for (const from of listOf<NonNullable<Container['envFrom']>[number]>(container.envFrom)) {
      add('ConfigMap', from.configMapRef?.name);
      add('Secret', from.secretRef?.name);
    }
  }
  for (const volume of listOf<VolumeRefs>(spec.volumes)) {
    add('ConfigMap', volume.configMap?.name);
    add('Secret', volume.secret?.secretName);
    add('PersistentVolumeClaim', volume.persistentVolumeClaim?.claimName);
    for (const source of listOf<NonNullable<NonNullable<VolumeRefs['projected']>['sources']>[number]>(volume.projected?.sources)) {
      add('ConfigMap', source.configMap?.name);
      add('Secret', source.secret?.name);
    }
  }
  for (const pull of listOf<{ name?: string }>(spec.imagePullSecrets)) add('Secret', pull.name);
  return [...seen.values()];
}

function allContainers(spec: Pod['spec']): Container[] {
  return [...listOf<Container>(spec.initContainers), ...listOf<Container>(spec.containers), ...listOf<Container>(spec.ephemeralContainers)];
}
