import type { Container } from '../../shared/types.js';

/** Pod defaults the apiserver applies and controllers compare against. */

/** Container defaults (SetDefaults_Container); pod templates of Deployments and ReplicaSets get them too. */
export function defaultContainer(c: Container): void {
  c.imagePullPolicy ??= pullPolicy(c.image);
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  c.resources ??= {};
  for (const p of c.ports ?? []) p.protocol ??= 'TCP';
}

/** Always for ":latest" or an untagged image, else IfNotPresent. */
function pullPolicy(image: unknown): string {
  if (typeof image !== 'string' || !image) return 'IfNotPresent'; // validation refuses a missing or non-string image
  if (image.includes('@')) return 'IfNotPresent';
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastPart.lastIndexOf(':');
  return colon < 0 || lastPart.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

/** How long a pod tolerates a not-ready or unreachable node unless it says otherwise (seconds of cluster time: the node controller divides them by the time scale). */
export const DEFAULT_TOLERATION_SECONDS = 300;
