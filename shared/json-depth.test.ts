import { describe, expect, it } from 'vitest';
import { pathBeyond } from './json-depth.js';

/** An object `levels` deep: {a:{a:...{}}} */
const nested = (levels: number): unknown => (levels <= 1 ? {} : { a: nested(levels - 1) });

describe('pathBeyond', () => {
  it('finds nothing in a value nested up to the limit', () => {
    expect(pathBeyond(nested(64), 64)).toBeUndefined();
    expect(pathBeyond({ x: [1, 'two', null, { y: [[]] }] }, 5)).toBeUndefined();
    expect(pathBeyond('text', 1)).toBeUndefined();
  });

  it('names the first object or array past the limit, arrays by index', () => {
    expect(pathBeyond(nested(65), 64)).toBe(Array(64).fill('a').join('.'));
    expect(pathBeyond({ x: [1, { y: [[]] }] }, 3)).toBe('x[1].y');
    expect(pathBeyond({ ok: {}, spec: { list: [{}, { deep: {} }] } }, 4)).toBe('spec.list[1].deep');
  });

  it('finds what lies beyond a limit too large to check recursively', () => {
    expect(pathBeyond(nested(1500), 1200)).toBe(Array(1200).fill('a').join('.'));
  });
});
