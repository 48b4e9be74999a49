import { describe, expect, it } from 'vitest';
import { readFields, signedInt, WireError, WireReader } from '../../cloud/apiserver/protobuf/wire.js';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

describe('protobuf wire reader', () => {
  it('reads varints of one, two and ten bytes', () => {
    expect(new WireReader(bytes(0x01)).varint()).toBe(1n);
    expect(new WireReader(bytes(0xac, 0x02)).varint()).toBe(300n);
    const max = bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    expect(new WireReader(max).varint()).toBe(2n ** 64n - 1n);
  });

  it('reads a negative int32 (sign-extended to ten bytes) as a negative number', () => {
    const [field] = readFields(bytes(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01));
    expect(field).toEqual({ field: 1, wire: 0, value: 2n ** 64n - 1n });
    expect(signedInt(field!.value as bigint)).toBe(-1);
  });

  it('reads each wire type with its field number, in order', () => {
    const message = bytes(
      0x08, 0x96, 0x01, // 1: varint 150
      0x15, 0x12, 0x34, 0x56, 0x78, // 2: fixed32, little-endian
      0x19, 0x01, 0, 0, 0, 0, 0, 0, 0x80, // 3: fixed64
      0x22, 0x03, 0x61, 0x62, 0x63, // 4: "abc"
      0xa2, 0x01, 0x00, // 20: empty length-delimited (a two-byte key)
    );
    expect(readFields(message)).toEqual([
      { field: 1, wire: 0, value: 150n },
      { field: 2, wire: 5, value: 0x78563412 },
      { field: 3, wire: 1, value: 2n ** 63n + 1n },
      { field: 4, wire: 2, value: bytes(0x61, 0x62, 0x63) },
      { field: 20, wire: 2, value: bytes() },
    ]);
  });

  it('reads a length-delimited value as a view that nests', () => {
    const outer = bytes(0x0a, 0x04, 0x0a, 0x02, 0x68, 0x69); // 1: { 1: "hi" }
    const [field] = readFields(outer);
    const [inner] = readFields(field!.value as Uint8Array);
    expect(Buffer.from(inner!.value as Uint8Array).toString()).toBe('hi');
  });

  it('refuses malformed input', () => {
    expect(() => readFields(bytes(0x08, 0x80))).toThrow(new WireError('truncated varint'));
    expect(() => readFields(bytes(0x22, 0x05, 0x61))).toThrow(new WireError('length-delimited field runs past the end'));
    expect(() => readFields(bytes(0x15, 0x01, 0x02))).toThrow(new WireError('truncated field'));
    expect(() => readFields(bytes(0x00, 0x01))).toThrow(new WireError('field number 0'));
    expect(() => readFields(bytes(0x0b))).toThrow(new WireError('unsupported wire type 3 (field 1)'));
    expect(() => new WireReader(new Uint8Array(11).fill(0xff)).varint()).toThrow(WireError);
  });

  it('reads an empty message as no fields', () => {
    expect(readFields(bytes())).toEqual([]);
  });
});
