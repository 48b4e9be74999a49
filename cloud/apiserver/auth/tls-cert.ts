import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { children, contentOf, int, oid, pem, seq, set, time, tlv } from './der.js';

/**
 * The cloud's certificates, ECDSA P-256, written in DER by hand because Node has no X.509
 * builder: a CA (kept in the data directory; join tokens pin its fingerprint) and serving
 * certificates it signs for the API and the MQTT broker. kubectl sends credentials only over
 * TLS, so the apiserver serves HTTPS even on loopback. Without an issuer a serving
 * certificate signs itself (tests that need a stranger's certificate). Every certificate
 * passes `openssl verify -x509_strict`: key identifiers, critical basic constraints and key
 * usage as RFC 5280 and RFC 5480 (ECDSA keys) ask.
 */
export interface ServingCert {
  certPem: string;
  keyPem: string;
}

export interface CertOptions {
  commonName: string;
  /** Subject alternative names: IP addresses and DNS names. */
  hosts: string[];
  /** Milliseconds since the epoch (from the Clock). */
  now: number;
  validDays?: number;
  /** The CA that signs it; none: self-signed. */
  issuer?: ServingCert;
}

const EXTENSION = {
  subjectKeyId: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyId: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
} as const;
/** KeyUsage bits (a BIT STRING: its first byte counts the unused bits of the last). */
const USAGE = {
  keyCertSignAndCrlSign: Buffer.from([0x01, 0x06]),
  digitalSignature: Buffer.from([0x07, 0x80]),
  digitalSignatureAndKeyCertSign: Buffer.from([0x02, 0x84]),
};
const ecdsaWithSha256 = (): Buffer => seq(oid('1.2.840.10045.4.3.2'));
const commonNameOf = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));
const isCa = (yes: boolean): Buffer => extension(EXTENSION.basicConstraints, true, yes ? seq(tlv(0x01, Buffer.from([0xff]))) : seq());
const keyUsage = (bits: Buffer): Buffer => extension(EXTENSION.keyUsage, true, tlv(0x03, bits));
const HOUR = 60 * 60_000;
const DAY = 86_400_000;

export function generateCa(opts: { commonName: string; now: number; validDays?: number }): ServingCert {
  return certificate({ subject: commonNameOf(opts.commonName), now: opts.now, validDays: opts.validDays ?? 3650, extensions: caExtensions() });
}

/** The same CA (its name and key) in a new certificate, valid from `now`, with what strict verification asks. */
export function reissueCa(ca: ServingCert, now: number, validDays = 3650): ServingCert {
  return certificate({ subject: subjectOf(ca.certPem), now, validDays, key: createPrivateKey(ca.keyPem), extensions: caExtensions() });
}

function caExtensions(): Buffer[] {
  return [isCa(true), keyUsage(USAGE.keyCertSignAndCrlSign)];
}

export function generateServingCert(opts: CertOptions): ServingCert {
  const serverAuth = extension(EXTENSION.extKeyUsage, false, seq(oid('1.3.6.1.5.5.7.3.1')));
  const altNames = extension(EXTENSION.subjectAltName, false, seq(...opts.hosts.map(altName)));
  const usage = opts.issuer ? [isCa(false), keyUsage(USAGE.digitalSignature)] : [isCa(true), keyUsage(USAGE.digitalSignatureAndKeyCertSign)];
  const subject = commonNameOf(opts.commonName);
  return certificate({ subject, now: opts.now, validDays: opts.validDays ?? 3650, issuer: opts.issuer, extensions: [...usage, serverAuth, altNames] });
}

interface Draft {
  subject: Buffer;
  now: number;
  validDays: number;
  /** none: self-signed. */
  issuer?: ServingCert;
  /** The subject's private key; none: a new one. */
  key?: KeyObject;
  extensions: Buffer[];
}

function certificate(d: Draft): ServingCert {
  const privateKey = d.key ?? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const issuerKey = d.issuer ? createPrivateKey(d.issuer.keyPem) : privateKey;
  const identifiers = [extension(EXTENSION.subjectKeyId, false, tlv(0x04, keyIdentifier(spki)))];
  if (d.issuer) identifiers.push(extension(EXTENSION.authorityKeyId, false, seq(tlv(0x80, keyIdentifier(createPublicKey(issuerKey).export({ type: 'spki', format: 'der' }))))));
  const serial = randomBytes(16);
  // Positive, and no leading zero byte: DER allows only the minimal encoding of an INTEGER.
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))),
    int(serial),
    ecdsaWithSha256(),
    d.issuer ? subjectOf(d.issuer.certPem) : d.subject,
    seq(time(d.now - HOUR), time(d.now + d.validDays * DAY)),
    d.subject,
    spki,
    tlv(0xa3, seq(...d.extensions, ...identifiers)),
  );
  const signature = sign('sha256', tbs, issuerKey);
  const der = seq(tbs, ecdsaWithSha256(), tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { certPem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** RFC 5280's method 1: the SHA-1 of the subjectPublicKey bits (the BIT STRING's content after its unused-bits byte). */
function keyIdentifier(spki: Buffer): Buffer {
  return createHash('sha1').update(contentOf(children(spki)[1]!).subarray(1)).digest();
}

/**
 * Whether `certPem` is valid at `now` (and for a day more), covers every host, matches
 * `keyPem`, carries the key identifiers strict verification asks for and, given `ca`, was
 * signed by it.
 */
export function certCovers(cert: ServingCert, hosts: string[], now: number, ca?: string): boolean {
  try {
    const x = new X509Certificate(cert.certPem);
    if (Date.parse(x.validTo) <= now + DAY || !x.checkPrivateKey(createPrivateKey(cert.keyPem)) || !hasKeyIdentifiers(cert.certPem)) return false;
    if (ca !== undefined && !isIssuedBy(x, new X509Certificate(ca))) return false;
    return hosts.every((h) => (isIP(h) ? x.checkIP(h) !== undefined : x.checkHost(h) !== undefined));
  } catch {
    return false;
  }
}

/** Whether a CA certificate is valid at `now` (and for a year more) and matches its key. */
export function caUsable(ca: ServingCert, now: number): boolean {
  try {
    const x = new X509Certificate(ca.certPem);
    return x.ca && Date.parse(x.validTo) > now + 365 * DAY && x.checkPrivateKey(createPrivateKey(ca.keyPem));
  } catch {
    return false;
  }
}

/** A subject key identifier, and an authority key identifier unless it is self-issued: what `-x509_strict` asks of both a CA and a leaf. */
export function hasKeyIdentifiers(certPem: string): boolean {
  const x = new X509Certificate(certPem);
  const present = extensionsOf(x.raw).map((e) => children(e)[0]!);
  const has = (id: string): boolean => present.some((o) => o.equals(oid(id)));
  return has(EXTENSION.subjectKeyId) && (x.issuer === x.subject || has(EXTENSION.authorityKeyId));
}

function isIssuedBy(cert: X509Certificate, ca: X509Certificate): boolean {
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

/** The TBSCertificate's elements: version, serial, signature, issuer, validity, subject, key, extensions. */
const tbsOf = (der: Buffer): Buffer[] => children(children(der)[0]!);

/** The subject Name of a certificate, as DER. */
function subjectOf(certPem: string): Buffer {
  return tbsOf(new X509Certificate(certPem).raw)[5]!;
}

/** Each Extension (a SEQUENCE of OID, critical, value) of a certificate. */
function extensionsOf(der: Buffer): Buffer[] {
  const wrapped = tbsOf(der).find((e) => e[0] === 0xa3);
  return wrapped ? children(children(wrapped)[0]!) : [];
}

function altName(host: string): Buffer {
  if (isIP(host) === 4) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
  if (isIP(host) === 6) return tlv(0x87, ipv6Bytes(host));
  return tlv(0x82, Buffer.from(host, 'ascii'));
}

/** The 16 bytes of an IPv6 address, one with an IPv4 tail (::ffff:10.0.0.1) included. */
function ipv6Bytes(host: string): Buffer {
  const v4 = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  const hex = v4 ? `${v4[1]}${((+v4[2]! << 8) | +v4[3]!).toString(16)}:${((+v4[4]! << 8) | +v4[5]!).toString(16)}` : host;
  const [head, tail] = hex.split('::') as [string, string | undefined];
  const parse = (s: string | undefined): number[] => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  const groups = tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}
