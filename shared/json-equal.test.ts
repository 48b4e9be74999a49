import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.js';

describe('jsonEqual', () => {
  it('compares by value, whatever the member order', () => {
    expect(jsonEqual({ a: 1, b: { c: [1, 'x', null] } }, { b: { c: [1, 'x', null] }, a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(jsonEqual({ a: [1] }, { a: [1, 1] })).toBe(false);
  });

  it('takes an undefined member as absent, as JSON does', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
  });

  it('tells apart an object, an array, null and a missing value', () => {
    expect(jsonEqual({}, [])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(undefined, {})).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});
