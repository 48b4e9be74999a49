import { describe, expect, it } from 'vitest';
import { listPieces, STREAMED_LIST_MIN_ITEMS, streamedMember } from './list-encoding.js';

const items = (n: number): unknown[] => Array.from({ length: n }, (_, i) => ({ metadata: { name: `cm-${i}`, labels: { n: String(i) } }, data: { k: 'v'.repeat(i % 50) } }));

describe('list encoding', () => {
  it('streams only a long items or rows array that is the last member', () => {
    const long = items(STREAMED_LIST_MIN_ITEMS);
    expect(streamedMember({ kind: 'ConfigMapList', metadata: {}, items: long })).toBe('items');
    expect(streamedMember({ kind: 'Table', columnDefinitions: [], rows: long })).toBe('rows');
    expect(streamedMember({ kind: 'ConfigMapList', items: long.slice(1) })).toBeUndefined();
    expect(streamedMember({ items: long, metadata: {} })).toBeUndefined(); // not last: moving it would reorder the JSON
    expect(streamedMember([long])).toBeUndefined();
    expect(streamedMember('items')).toBeUndefined();
  });

  it('joins to exactly the JSON of the whole body, in pieces of about the size asked', () => {
    const body = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'x"y' }, items: items(1000) };
    const pieces = [...listPieces(body, 'items', 4096)];
    expect(pieces.join('')).toBe(JSON.stringify(body));
    expect(pieces.length).toBeGreaterThan(10);
    expect(Math.max(...pieces.slice(0, -1).map((p) => p.length))).toBeLessThan(4096 + 200);
  });

  it('encodes what JSON.stringify would for odd elements and an otherwise empty body', () => {
    const body = { rows: [undefined, null, 1, 'two', [3], () => 4, { a: undefined }] };
    expect([...listPieces(body, 'rows', 1)].join('')).toBe(JSON.stringify(body));
    expect([...listPieces({ items: [] }, 'items')].join('')).toBe('{"items":[]}');
  });
});
