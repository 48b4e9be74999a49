import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { KedgeError } from './errors.js';

/**
 * A join token, `K10<CA fingerprint>::<id>.<secret>`: the fingerprint (SHA-256 of the cloud
 * CA's DER certificate, hex) lets a new edge trust the CA it downloads; the id and secret are a
 * bootstrap token (a Secret `bootstrap-token-<id>` in kube-system), as kubeadm and k3s use.
 */
export interface JoinToken {
  caHash: string;
  id: string;
  secret: string;
}

const PREFIX = 'K10';
const FORM = /^K10([0-9a-f]{64})::([a-z0-9]{6})\.([a-z0-9]{16})$/;
const BOOTSTRAP = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function formatJoinToken(token: JoinToken): string {
  return `${PREFIX}${token.caHash}::${token.id}.${token.secret}`;
}

export function parseJoinToken(text: string): JoinToken {
  const m = FORM.exec(text.trim());
  if (!m) throw new KedgeError('Invalid', 'not a join token: expected K10<64 hex digits>::<6 characters>.<16 characters> (from kedge token create --node)');
  return { caHash: m[1]!, id: m[2]!, secret: m[3]! };
}

/** The `<id>.<secret>` part, as sent to the cloud; undefined when `text` is not one. */
export function parseBootstrapToken(text: string): { id: string; secret: string } | undefined {
  const m = BOOTSTRAP.exec(text);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/** A fresh id and secret (lowercase letters and digits, as kubeadm's). */
export function newBootstrapToken(): { id: string; secret: string } {
  return { id: randomText(6), secret: randomText(16) };
}

/** SHA-256 of the DER encoding of the one certificate `caPem` holds, lowercase hex. */
export function caFingerprint(caPem: string, source = 'the CA'): string {
  return fingerprintOf(onlyCertificate(caPem, source));
}

/**
 * The one certificate `pem` holds, as PEM made again from its DER so that nothing else rides
 * along; throws when `pem` holds none, more than one, or anything beside it. A join token pins
 * one CA: a bundle would have the edge trust whatever else came in it.
 */
export function onlyCertificate(pem: string, source: string): X509Certificate {
  const blocks = pem.match(/-----BEGIN [^-]*-----[\s\S]*?-----END [^-]*-----/g) ?? [];
  const rest = blocks.reduce((text, block) => text.replace(block, ''), pem);
  if (blocks.length > 1) throw new KedgeError('Forbidden', `${source} holds ${blocks.length} PEM blocks: a join token pins exactly one CA certificate, and nothing may come with it`);
  if (blocks.length === 0 || !blocks[0]!.startsWith('-----BEGIN CERTIFICATE-----') || rest.trim() !== '') {
    throw new KedgeError('Invalid', `${source} is not one PEM certificate and nothing else`);
  }
  try {
    return new X509Certificate(blocks[0]!);
  } catch (err) {
    throw new KedgeError('Invalid', `${source} is not a certificate: ${(err as Error).message}`);
  }
}

/** The CA certificate in `pem`, as PEM, when it is the only one there and the one `caHash` pins; throws otherwise. */
export function pinnedCa(pem: string, caHash: string, source: string): string {
  const ca = onlyCertificate(pem, source);
  const fingerprint = fingerprintOf(ca);
  if (fingerprint !== caHash) throw new KedgeError('Forbidden', `the CA in ${source} (sha256 ${fingerprint}) is not the one the token pins (${caHash})`);
  return ca.toString();
}

const fingerprintOf = (cert: X509Certificate): string => createHash('sha256').update(cert.raw).digest('hex');

function randomText(length: number): string {
  // 252 is the largest multiple of 36 under 256: rejecting above it keeps every character equally likely.
  let out = '';
  while (out.length < length) for (const b of randomBytes(length)) if (b < 252 && out.length < length) out += ALPHABET[b % 36];
  return out;
}
