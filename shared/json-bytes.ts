/**
 * How many UTF-8 bytes `JSON.stringify(value)` would take, without building the string: the
 * size limits of every write count bytes, and serialising a whole object just to count them was
 * one of the write path's main costs. Exactly Buffer.byteLength(JSON.stringify(value)) for any
 * value JSON can write; anything unusual (toJSON, a bigint, a cycle) is measured by JSON.stringify
 * itself, which also throws as it would.
 */
export function jsonByteLength(value: unknown): number {
  const bytes = measured(value);
  return bytes === undefined ? Buffer.byteLength(JSON.stringify(value) ?? '') : bytes;
}

/** Deeper than this is left to JSON.stringify (a cycle: it throws TypeError, not RangeError). */
const MAX_DEPTH = 1000;

/** undefined: measure with JSON.stringify; -1: writes nothing (undefined, a function, a symbol). */
function measured(value: unknown, depth = 0): number | undefined {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'undefined':
    case 'function':
    case 'symbol':
      return -1;
    case 'object':
      if (value === null) return 4;
      if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      return Array.isArray(value) ? arrayBytes(value, depth + 1) : objectBytes(value as Record<string, unknown>, depth + 1);
    default:
      return undefined;
  }
}

function arrayBytes(items: unknown[], depth: number): number | undefined {
  let bytes = 2 + Math.max(0, items.length - 1);
  for (const item of items) {
    const n = measured(item, depth);
    if (n === undefined) return undefined;
    bytes += n < 0 ? 4 : n;
  }
  return bytes;
}

function objectBytes(o: Record<string, unknown>, depth: number): number | undefined {
  let bytes = 2;
  let members = 0;
  for (const key of Object.keys(o)) {
    const n = measured(o[key], depth);
    if (n === undefined) return undefined;
    if (n < 0) continue;
    bytes += stringBytes(key) + 1 + n;
    members++;
  }
  return bytes + Math.max(0, members - 1);
}

/** A string's bytes as JSON: plain printable ASCII is its length and two quotes; anything else as JSON writes it. */
function stringBytes(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return Buffer.byteLength(JSON.stringify(s));
  }
  return s.length + 2;
}
