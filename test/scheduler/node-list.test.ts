import { describe, expect, it } from 'vitest';
import { NodeList } from '../../cloud/scheduler/node-list.js';
import { nodeInfo } from '../../cloud/scheduler/pick-node.js';
import { node as nodeObject } from './fixtures.js';

const node = (name: string, options?: Parameters<typeof nodeObject>[1]) => nodeInfo(nodeObject(name, options));

const names = (list: NodeList) => list.all.map((n) => n.offer.name);

describe('NodeList', () => {
  it('adds, replaces in place and removes by moving the last node into the hole', () => {
    const list = new NodeList();
    for (const name of ['a', 'b', 'c', 'd']) list.set(node(name));
    const b2 = node('b', { ready: 'False' });
    list.set(b2);
    expect(names(list)).toEqual(['a', 'b', 'c', 'd']);
    expect(list.get('b')).toBe(b2);
    list.delete('b');
    expect(names(list)).toEqual(['a', 'd', 'c']);
    list.delete('c');
    list.delete('missing');
    expect(names(list)).toEqual(['a', 'd']);
    expect(list.get('d')?.offer.name).toBe('d');
    expect(list.get('b')).toBeUndefined();
    list.set(node('e'));
    expect(names(list)).toEqual(['a', 'd', 'e']);
    expect(list.size).toBe(3);
  });
});
