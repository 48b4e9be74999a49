import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * A self-signed serving certificate (ECDSA P-256), written in DER by hand because Node has
 * no X.509 builder. kubectl sends credentials only over TLS, so the apiserver serves HTTPS
 * even on loopback; clients trust this certificate itself (certificate-authority-data).
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
}

export function generateServingCert(opts: CertOptions): ServingCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(opts.commonName, 'utf8')))));
  const notBefore = opts.now - 60 * 60_000;
  const notAfter = opts.now + (opts.validDays ?? 3650) * 86_400_000;
  const serial = randomBytes(16);
  // Positive, and no leading zero byte: DER allows only the minimal encoding of an INTEGER.
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))),
    int(serial),
    ecdsaWithSha256,
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, seq(
      extension('2.5.29.19', true, seq(tlv(0x01, Buffer.from([0xff])))),
      extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x02, 0xa4]))),
      extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
      extension('2.5.29.17', false, seq(...opts.hosts.map(altName))),
    )),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { certPem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** Whether `certPem` is valid at `now`, covers every host and matches `keyPem`. */
export function certCovers(cert: ServingCert, hosts: string[], now: number): boolean {
  try {
    const x = new X509Certificate(cert.certPem);
    if (Date.parse(x.validTo) <= now + 86_400_000 || !x.checkPrivateKey(createPrivateKey(cert.keyPem))) return false;
    return hosts.every((h) => (isIP(h) ? x.checkIP(h) !== undefined : x.checkHost(h) !== undefined));
  } catch {
    return false;
  }
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
