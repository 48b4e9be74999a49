import { describe, expect, it } from 'vitest';
import { applyMergePatch, canonicalJson, digestOf, mergePatchBetween } from './object-patch.js';

describe('merge patches between versions of an object (RFC 7386)', () => {
  it('applies as RFC 7386 says: objects merge, null removes, anything else replaces', () => {
    const base = { a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] };
    expect(applyMergePatch(base, { a: 'z', c: { f: null }, list: [3] })).toEqual({ a: 'z', c: { d: 'e' }, list: [3] });
    expect(base).toEqual({ a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] }); // untouched
  });

  it('finds the members that changed, and nothing for an equal object', () => {
    const base = { metadata: { name: 'web', labels: { app: 'web' }, resourceVersion: '1' }, spec: { containers: [{ name: 'c', image: 'a' }] } };
    const target = { metadata: { name: 'web', labels: { app: 'web', run: '1' }, resourceVersion: '2' }, spec: { containers: [{ name: 'c', image: 'a' }] } };
    expect(mergePatchBetween(base, target)).toEqual({ metadata: { labels: { run: '1' }, resourceVersion: '2' } });
    expect(mergePatchBetween(base, structuredClone(base))).toEqual({});
    expect(mergePatchBetween({ a: 1, b: 2 }, { a: 1 })).toEqual({ b: null });
  });

  it('gives none where a merge patch cannot say it (a member set to null): the object goes whole', () => {
    expect(mergePatchBetween({ a: { b: 1 } }, { a: { b: null } })).toBeUndefined();
    // Inside an array null is a value like any other.
    expect(mergePatchBetween({ c: [{ t: 1 }] }, { c: [{ t: null }] })).toEqual({ c: [{ t: null }] });
  });

  it('digests an object whatever the order of its members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(digestOf({ a: 1, b: 2 })).toBe(digestOf({ b: 2, a: 1 }));
    expect(digestOf({ a: 1 })).not.toBe(digestOf({ a: 2 }));
  });
});
