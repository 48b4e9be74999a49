import { pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Broker passwords are kept only as hashes, in Mosquitto's own format
 * (`$7$<iterations>$<salt, base64>$<PBKDF2-HMAC-SHA512, base64>`), so one stored hash serves
 * the embedded broker and a Mosquitto password file alike.
 */
const ITERATIONS = 101; // mosquitto_passwd's default
const SALT_BYTES = 12;
const HASH_BYTES = 64;
const FORMAT = /^\$7\$(\d{1,7})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

export function hashPassword(password: string, salt: Buffer = randomBytes(SALT_BYTES)): string {
  const hash = pbkdf2Sync(password, salt, ITERATIONS, HASH_BYTES, 'sha512');
  return `$7$${ITERATIONS}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether `password` matches `stored`; false for anything not in the format. */
export function verifyPassword(password: string, stored: string): boolean {
  const m = FORMAT.exec(stored);
  if (!m) return false;
  const iterations = Number(m[1]);
  const expected = Buffer.from(m[3]!, 'base64');
  if (iterations < 1 || expected.length !== HASH_BYTES) return false;
  const actual = pbkdf2Sync(password, Buffer.from(m[2]!, 'base64'), iterations, HASH_BYTES, 'sha512');
  return timingSafeEqual(actual, expected);
}
