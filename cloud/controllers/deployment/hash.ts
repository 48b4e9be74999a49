import { POD_TEMPLATE_HASH_LABEL, type PodTemplateSpec } from '../../../shared/apps-types.js';
import { defaultPodTemplate } from '../../client/apps-defaults.js';
import { stableJson } from '../../client/object-meta.js';

/**
 * The pod-template-hash: FNV-32a of the template (as kube's ComputeHash, over a stable JSON
 * form instead of Go's spew dump), then "safe-encoded" so it never spells words.
 */
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** k8s.io/apimachinery rand.SafeEncodeString. */
export function safeEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => alphanums[b % alphanums.length]).join('');
}

/**
 * The template with the apiserver's defaults, without the hash label, and without null or
 * empty values (Go omits them: `kubectl rollout undo` sends `creationTimestamp: null`, a
 * stored template has none): what "same template" compares and the hash covers.
 */
export function normalizedTemplate(template: PodTemplateSpec): PodTemplateSpec {
  const copy = structuredClone(template);
  defaultPodTemplate(copy);
  const labels = copy.metadata?.labels;
  if (labels) delete labels[POD_TEMPLATE_HASH_LABEL];
  return (compact(copy) ?? {}) as PodTemplateSpec;
}

function compact(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((v) => compact(v) ?? {});
    return items.length > 0 ? items : undefined;
  }
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, compact(v)] as const).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

export function sameTemplate(a: PodTemplateSpec, b: PodTemplateSpec): boolean {
  return stableJson(normalizedTemplate(a)) === stableJson(normalizedTemplate(b));
}

/** `collisionCount` changes the hash when a ReplicaSet of that name exists with another template. */
export function podTemplateHash(template: PodTemplateSpec, collisionCount?: number): string {
  const text = stableJson(normalizedTemplate(template)) + (collisionCount ? String(collisionCount) : '');
  return safeEncode(String(fnv32a(text)));
}
