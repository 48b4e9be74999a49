/**
 * A protobuf wire-format reader: the four wire types Kubernetes' generated code writes
 * (varint, 64-bit, length-delimited, 32-bit), one field at a time. It knows no schema;
 * `schemas.ts` says what the fields mean. Malformed input throws WireError.
 */

export class WireError extends Error {}

export const WireType = { Varint: 0, Fixed64: 1, Bytes: 2, Fixed32: 5 } as const;

/** One field as read off the wire: varints as bigint (int64 needs 64 bits), bytes as a view. */
export type WireField =
  | { field: number; wire: 0; value: bigint }
  | { field: number; wire: 1; value: bigint }
  | { field: number; wire: 2; value: Uint8Array }
  | { field: number; wire: 5; value: number };

export class WireReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** An unsigned varint of up to 64 bits. */
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.buf.length) throw new WireError('truncated varint');
      const byte = this.buf[this.pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new WireError('varint longer than 10 bytes');
  }

  fixed32(): number {
    const b = this.take(4);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  }

  fixed64(): bigint {
    const b = this.take(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  }

  /** A length-delimited payload (string, bytes, embedded message, map entry). */
  bytes(): Uint8Array {
    const length = this.varint();
    if (length > BigInt(this.buf.length - this.pos)) throw new WireError('length-delimited field runs past the end');
    return this.take(Number(length));
  }

  /** The next field; a field number of 0 or an unknown wire type (groups included) is malformed. */
  next(): WireField {
    const key = this.varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw new WireError('field number 0');
    switch (wire) {
      case WireType.Varint: return { field, wire, value: this.varint() };
      case WireType.Fixed64: return { field, wire, value: this.fixed64() };
      case WireType.Bytes: return { field, wire, value: this.bytes() };
      case WireType.Fixed32: return { field, wire, value: this.fixed32() };
      default: throw new WireError(`unsupported wire type ${wire} (field ${field})`);
    }
  }

  private take(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new WireError('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** Every field of a message, in wire order. */
export function readFields(buf: Uint8Array): WireField[] {
  const reader = new WireReader(buf);
  const fields: WireField[] = [];
  while (!reader.done) fields.push(reader.next());
  return fields;
}

/** A varint as a signed int64/int32 value (two's complement), as a JS number. */
export function signedInt(value: bigint): number {
  return Number(BigInt.asIntN(64, value));
}
