import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a string, as lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether two secrets are equal, compared in a time that tells nothing of where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}
