import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listPieces, STREAMED_LIST_MIN_ITEMS, streamedMember, writePieces } from './list-encoding.js';

/** A response whose buffer is full after every write, until 'drain'. */
class SlowResponse extends EventEmitter {
  written: string[] = [];
  ended = false;
  destroyedWith: Error | undefined;
  write(piece: string): boolean {
    this.written.push(piece);
    return false;
  }
  end(): void {
    this.ended = true;
  }
  destroy(err: Error): void {
    this.destroyedWith = err;
  }
}

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

  it('writes a piece only when the connection drained the one before, and stops when it closes', () => {
    const res = new SlowResponse();
    writePieces(res as unknown as ServerResponse, ['a', 'b', 'c', 'd'][Symbol.iterator]());
    expect(res.written).toEqual(['a']);
    res.emit('drain');
    expect(res.written).toEqual(['a', 'b']);
    res.emit('close');
    res.emit('drain');
    expect(res.written).toEqual(['a', 'b']);
    expect(res.ended).toBe(false);
  });

  it('ends the answer after the last piece, and cuts it off when a later piece cannot be encoded', () => {
    const done = new SlowResponse();
    writePieces(done as unknown as ServerResponse, ['a'][Symbol.iterator]());
    done.emit('drain');
    expect(done.ended).toBe(true);
    const failing = new SlowResponse();
    const big = { items: [1n] as unknown[] };
    writePieces(failing as unknown as ServerResponse, listPieces(big, 'items', 0));
    expect(failing.written).toEqual(['{"items":[']);
    expect(() => failing.emit('drain')).not.toThrow();
    expect(failing.destroyedWith?.message).toMatch(/BigInt/);
  });
});
