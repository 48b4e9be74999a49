import { describe, expect, it } from 'vitest';
import { generateCa } from '../../cloud/apiserver/auth/tls-cert.js';
import { hashPassword, verifyPassword } from '../../cloud/hub/password-hash.js';
import { bootstrapTokenOf, bootstrapTokenSecret, nodeCredentialOf, nodeCredentialSecret } from '../../cloud/join/secrets.js';
import { caFingerprint, formatJoinToken, newBootstrapToken, parseBootstrapToken, parseJoinToken } from '../../shared/join-token.js';

describe('join tokens', () => {
  const ca = generateCa({ commonName: 'ca', now: Date.UTC(2026, 0, 1) });

  it('round-trips, pinning the CA by the SHA-256 of its DER', () => {
    const { id, secret } = newBootstrapToken();
    expect(id).toMatch(/^[a-z0-9]{6}$/);
    expect(secret).toMatch(/^[a-z0-9]{16}$/);
    const text = formatJoinToken({ caHash: caFingerprint(ca.certPem), id, secret });
    expect(text).toMatch(/^K10[0-9a-f]{64}::[a-z0-9]{6}\.[a-z0-9]{16}$/);
    expect(parseJoinToken(` ${text}\n`)).toEqual({ caHash: caFingerprint(ca.certPem), id, secret });
    expect(parseBootstrapToken(`${id}.${secret}`)).toEqual({ id, secret });
  });

  it.each(['', 'abc', 'K10abc::abcdef.0123456789abcdef', `K10${'0'.repeat(64)}::ABCDEF.0123456789abcdef`, `K10${'0'.repeat(64)}::abcdef.0123`])(
    'refuses %j with a message that says what a join token looks like',
    (text) => expect(() => parseJoinToken(text)).toThrow(/not a join token: expected K10/),
  );

  it('keeps tokens and credentials in Secrets in the formats kubeadm and Mosquitto use', () => {
    const token = { id: 'abcdef', secret: '0123456789abcdef', expires: Date.UTC(2026, 5, 1), node: 'edge-1', description: 'for edge-1' };
    const secret = bootstrapTokenSecret(token);
    expect(secret.type).toBe('bootstrap.kubernetes.io/token');
    expect(secret.metadata.name).toBe('bootstrap-token-abcdef');
    expect(Buffer.from(secret.data!.expiration!, 'base64').toString()).toBe('2026-06-01T00:00:00Z');
    expect(bootstrapTokenOf(secret)).toEqual(token);
    const credential = { node: 'edge-1', passwordHash: hashPassword('pw'), tokenId: 'abcdef' };
    expect(nodeCredentialOf(nodeCredentialSecret(credential))).toEqual(credential);
    expect(nodeCredentialOf(secret)).toBeUndefined();
  });
});

describe('password hashes', () => {
  it('verify only the password they were made from', () => {
    const hash = hashPassword('s3cret');
    expect(hash).toMatch(/^\$7\$101\$[A-Za-z0-9+/=]{16}\$[A-Za-z0-9+/=]{88}$/);
    expect(verifyPassword('s3cret', hash)).toBe(true);
    expect(verifyPassword('s3cret!', hash)).toBe(false);
    expect(verifyPassword('s3cret', 'plain')).toBe(false);
    expect(verifyPassword('s3cret', '$7$101$AAAA$AAAA')).toBe(false);
  });
});
