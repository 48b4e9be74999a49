/** The few DER (ASN.1) encodings and decodings tls-cert.ts writes certificates with. */

export function tlv(tag: number, content: Buffer): Buffer {
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

export function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

export function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

export function int(bytes: Buffer): Buffer {
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

export function oid(dotted: string): Buffer {
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
export function time(ms: number): Buffer {
  const iso = new Date(ms).toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z';
  return new Date(ms).getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

export function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** The TLV elements inside the constructed element at `der[offset]`, each with its header. */
export function children(der: Buffer, offset = 0): Buffer[] {
  const { start, end } = span(der, offset);
  const out: Buffer[] = [];
  for (let at = start; at < end; ) {
    const child = span(der, at);
    out.push(der.subarray(at, child.end));
    at = child.end;
  }
  return out;
}

/** The content of the element at `der[offset]`, without its header. */
export function contentOf(der: Buffer, offset = 0): Buffer {
  const { start, end } = span(der, offset);
  return der.subarray(start, end);
}

function span(der: Buffer, offset: number): { start: number; end: number } {
  const first = der[offset + 1]!;
  if (first < 0x80) return { start: offset + 2, end: offset + 2 + first };
  const bytes = first & 0x7f;
  let length = 0;
  for (let i = 0; i < bytes; i++) length = length * 256 + der[offset + 2 + i]!;
  return { start: offset + 2 + bytes, end: offset + 2 + bytes + length };
}
