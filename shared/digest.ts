import { createHash } from 'node:crypto';

/** SHA-256 of a string, as lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
