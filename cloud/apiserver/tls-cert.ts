import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * The cloud's certificates, ECDSA P-256, written in DER by hand because Node has no X.509
 * builder: a CA (kept in the data directory; join tokens pin its fingerprint) and serving
 * certificates it signs for the API and the MQTT broker. kubectl sends credentials only over
 * TLS, so the apiserver serves HTTPS even on loopback. Without an issuer a serving
 * certificate signs itself (tests that need a stranger's certificate).
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

const ecdsaWithSha256 = (): Buffer => seq(oid('1.2.840.10045.4.3.2'));
const commonNameOf = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));
const HOUR = 60 * 60_000;
const DAY = 86_400_000;

export function generateCa(opts: { commonName: string; now: number; validDays?: number }): ServingCert {
  const keyCertSignAndCrlSign = tlv(0x03, Buffer.from([0x01, 0x06]));
  return certificate(opts.commonName, opts.now, opts.validDays ?? 3650, undefined, [
    extension('2.5.29.19', true, seq(tlv(0x01, Buffer.from([0xff])))),
    extension('2.5.29.15', true, keyCertSignAndCrlSign),
  ]);
}

export function generateServingCert(opts: CertOptions): ServingCert {
  const serverAuth = extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1')));
  const altNames = extension('2.5.29.17', false, seq(...opts.hosts.map(altName)));
  const selfSigned = [
    extension('2.5.29.19', true, seq(tlv(0x01, Buffer.from([0xff])))),
    extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x02, 0xa4]))),
  ];
  const signedByCa = [extension('2.5.29.19', true, seq()), extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x05, 0xa0])))];
  return certificate(opts.commonName, opts.now, opts.validDays ?? 3650, opts.issuer, [...(opts.issuer ? signedByCa : selfSigned), serverAuth, altNames]);
}

function certificate(commonName: string, now: number, validDays: number, issuer: ServingCert | undefined, extensions: Buffer[]): ServingCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const subject = commonNameOf(commonName);
  const serial = randomBytes(16);
  // Positive, and no leading zero byte: DER allows only the minimal encoding of an INTEGER.
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))),
    int(serial),
    ecdsaWithSha256(),
    issuer ? subjectOf(issuer.certPem) : subject,
    seq(time(now - HOUR), time(now + validDays * DAY)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, issuer ? createPrivateKey(issuer.keyPem) : privateKey);
  const der = seq(tbs, ecdsaWithSha256(), tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { certPem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * Whether `certPem` is valid at `now` (and for a day more), covers every host, matches
 * `keyPem` and, given `ca`, was signed by it.
 */
export function certCovers(cert: ServingCert, hosts: string[], now: number, ca?: string): boolean {
  try {
    const x = new X509Certificate(cert.certPem);
    if (Date.parse(x.validTo) <= now + DAY || !x.checkPrivateKey(createPrivateKey(cert.keyPem))) return false;
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

function isIssuedBy(cert: X509Certificate, ca: X509Certificate): boolean {
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

/** The subject Name of a certificate, as DER: the sixth element of its TBSCertificate. */
function subjectOf(certPem: string): Buffer {
  const der = new X509Certificate(certPem).raw;
  const tbs = children(children(der, 0)[0]!, 0);
  return tbs[5]!;
}

/** The TLV elements inside the constructed element at `der`, each with its header. */
function children(der: Buffer, offset: number): Buffer[] {
  const { start, end } = span(der, offset);
  const out: Buffer[] = [];
  for (let at = start; at < end; ) {
    const child = span(der, at);
    out.push(der.subarray(at, child.end));
    at = child.end;
  }
  return out;
}

function span(der: Buffer, offset: number): { start: number; end: number } {
  const first = der[offset + 1]!;
  if (first < 0x80) return { start: offset + 2, end: offset + 2 + first };
  const bytes = first & 0x7f;
  let length = 0;
  for (let i = 0; i < bytes; i++) length = length * 256 + der[offset + 2 + i]!;
  return { start: offset + 2 + bytes, end: offset + 2 + bytes + length };
}

function altName(host: string): Buffer {
  if (isIP(host) === 4) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
  if (isIP(host) === 6) return tlv(0x87, ipv6Bytes(host));
  return tlv(0x82, Buffer.from(host, 'ascii'));
}

function ipv6Bytes(host: string): Buffer {
  const [head, tail] = host.split('::') as [string, string | undefined];
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

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

function int(bytes: Buffer): Buffer {
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const out = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime before 2050, GeneralizedTime after, as RFC 5280 asks. */
function time(ms: number): Buffer {
  const iso = new Date(ms).toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  return new Date(ms).getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}
