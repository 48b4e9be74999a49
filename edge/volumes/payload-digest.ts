import { createHash } from 'node:crypto';
import type { PlannedFile } from './volume-plan.js';

/** A cheap fingerprint of a payload (paths, modes and bytes): equal digests, nothing to write. */
export function payloadDigest(files: readonly PlannedFile[]): string {
  const hash = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${f.path}\0${f.mode}\0${f.content.length}\0`);
    hash.update(f.content);
  }
  return hash.digest('hex');
}

/** A path inside a volume must stay inside it (kube validates items' paths the same way). */
export function isSafeRelativePath(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.split('/').some((part) => part === '..' || part === '' || part.startsWith('..'));
}
