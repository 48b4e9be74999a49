import type { PodTemplateSpec } from '../../../shared/apps-types.js';
import { stableJson } from '../../client/object-meta.js';
import { normalizedTemplate } from '../../client/template-equality.js';

export { normalizedTemplate, sameTemplate } from '../../client/template-equality.js';

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

/** `collisionCount` changes the hash when a ReplicaSet of that name exists with another template. */
export function podTemplateHash(template: PodTemplateSpec, collisionCount?: number): string {
  const text = stableJson(normalizedTemplate(template)) + (collisionCount ? String(collisionCount) : '');
  return safeEncode(String(fnv32a(text)));
}
