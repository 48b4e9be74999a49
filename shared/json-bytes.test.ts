import { describe, expect, it } from 'vitest';
import { jsonByteLength } from './json-bytes.js';

const stringified = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');

describe('jsonByteLength', () => {
  it('counts exactly the bytes JSON.stringify writes', () => {
    const values: unknown[] = [
      {},
      [],
      'plain',
      '',
      { a: 1, b: 'two', c: [true, false, null], d: { e: -0, f: 1e21, g: 0.1, h: -12.5e-9 } },
      { quote: 'say "hi"\\ok', control: 'tab\tline\nnul\u0000bell\u0007', unicode: 'żółw 日本 😀', lone: '\ud800x', 'kéy "q"': 1 },
      { skipped: undefined, fn: () => 1, sym: Symbol('s'), kept: 0 },
      [undefined, () => 1, Symbol('s'), 1],
      { nan: NaN, inf: Infinity, neg: -Infinity, list: [NaN] },
      { when: new Date(0), nested: { toJSON: () => ({ x: 'yy' }) } },
      { deep: { deeper: { deepest: [[[{ a: [] }]]] } } },
    ];
    for (const value of values) expect(jsonByteLength(value)).toBe(stringified(value));
  });

  it('throws where JSON.stringify throws', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonByteLength({ n: 1n })).toThrow(TypeError);
    expect(() => jsonByteLength(cycle)).toThrow(TypeError);
  });
});
