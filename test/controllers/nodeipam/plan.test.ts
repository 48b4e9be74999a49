import { describe, expect, it } from 'vitest';
import { CidrBook, clusterCidrConfig, planAllocation, planNodeEvent } from '../../../cloud/controllers/nodeipam/index.js';
import { silentLogger } from '../../../shared/log.js';
import type { Node } from '../../../shared/types.js';

const node = (name: string, podCIDR?: string, uid = `${name}-uid`): Node => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name, uid }, spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {},
});

/** One step of a cluster's life: a node seen (with or without a range), or deleted. */
type Step = { add: string; podCIDR?: string } | { remove: string };

/**
 * Runs steps through the controller's plans and book, as its node handler and workers do (each
 * write succeeding at once): returns the range of each node still there (or 'none').
 */
function run(cluster: string, mask: number, steps: readonly Step[]): Record<string, string> {
  const book = new CidrBook(clusterCidrConfig(cluster, mask), silentLogger);
  const nodes = new Map<string, Node>();
  const got: Record<string, string> = {};
  const plan = (names: string[]): void => {
    for (const name of names) {
      const n = nodes.get(name);
      for (const action of planAllocation(n, book.held(name), () => book.set.next(), book.isStarved(name))) {
        if (action.type === 'notAvailable') book.starve(name);
        else {
          if (action.type === 'assign') book.take(name, n!.metadata.uid!, action.cidr);
          const written = node(name, action.cidr);
          nodes.set(name, written);
          book.note(planNodeEvent({ type: 'MODIFIED', object: written, old: n! }, book.held(name)));
        }
        got[name] = action.type === 'notAvailable' ? 'none' : action.cidr;
      }
    }
  };
  for (const step of steps) {
    if ('remove' in step) {
      const gone = nodes.get(step.remove)!;
      nodes.delete(step.remove);
      delete got[step.remove];
      plan(book.note(planNodeEvent({ type: 'DELETED', object: gone }, book.held(step.remove))));
      continue;
    }
    const seen = node(step.add, step.podCIDR);
    nodes.set(step.add, seen);
    if (step.podCIDR) got[step.add] = step.podCIDR;
    plan(book.note(planNodeEvent({ type: 'ADDED', object: seen }, book.held(step.add))));
  }
  return got;
}

describe('node IPAM: what range each node gets', () => {
  it.each<[string, string, number, Step[], Record<string, string>]>([
    ['in order from the first range (index 0)', '127.64.0.0/10', 24, [{ add: 'a' }, { add: 'b' }, { add: 'c' }], { a: '127.64.0.0/24', b: '127.64.1.0/24', c: '127.64.2.0/24' }],
    ['a released range is not reused before the cursor wraps', '127.64.0.0/10', 24, [{ add: 'a' }, { add: 'b' }, { remove: 'a' }, { add: 'c' }], { b: '127.64.1.0/24', c: '127.64.2.0/24' }],
    ['the cursor wraps, then takes the first free range', '10.0.0.0/22', 24, [{ add: 'a' }, { add: 'b' }, { add: 'c' }, { add: 'd' }, { remove: 'b' }, { add: 'e' }], { a: '10.0.0.0/24', c: '10.0.2.0/24', d: '10.0.3.0/24', e: '10.0.1.0/24' }],
    ['after a restart the existing ranges are marked, and a node keeps its own', '127.64.0.0/10', 24, [{ add: 'old-1', podCIDR: '127.64.0.0/24' }, { add: 'old-2', podCIDR: '127.64.2.0/24' }, { add: 'new-1' }, { add: 'new-2' }], { 'old-1': '127.64.0.0/24', 'old-2': '127.64.2.0/24', 'new-1': '127.64.1.0/24', 'new-2': '127.64.3.0/24' }],
    ['exhausted: the node stays without', '10.0.0.0/23', 24, [{ add: 'a' }, { add: 'b' }, { add: 'c' }], { a: '10.0.0.0/24', b: '10.0.1.0/24', c: 'none' }],
    ['a release gives a waiting node the freed range', '10.0.0.0/23', 24, [{ add: 'a' }, { add: 'b' }, { add: 'c' }, { remove: 'a' }], { b: '10.0.1.0/24', c: '10.0.0.0/24' }],
    ['other mask sizes: /26 ranges of a /24', '192.168.7.0/24', 26, [{ add: 'a' }, { add: 'b' }], { a: '192.168.7.0/26', b: '192.168.7.64/26' }],
    ['a range outside the cluster CIDR is kept and takes nothing', '10.0.0.0/23', 24, [{ add: 'far', podCIDR: '10.9.0.0/24' }, { add: 'a' }], { far: '10.9.0.0/24', a: '10.0.0.0/24' }],
  ])('%s', (_what, cluster, mask, steps, expected) => {
    expect(run(cluster, mask, steps)).toEqual(expected);
  });

  it('gives 1,000 nodes 1,000 distinct ranges, in order', () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({ add: `n${i}` }));
    const got = run('127.64.0.0/10', 24, steps);
    expect(new Set(Object.values(got)).size).toBe(1000);
    expect([got.n0, got.n255, got.n256, got.n999]).toEqual(['127.64.0.0/24', '127.64.255.0/24', '127.65.0.0/24', '127.67.231.0/24']);
  });

  it('reports CIDRNotAvailable once per waiting node, not on every retry', () => {
    const n = node('c');
    expect(planAllocation(n, undefined, () => undefined, false)).toEqual([{ type: 'notAvailable', report: true }]);
    expect(planAllocation(n, undefined, () => undefined, true)).toEqual([{ type: 'notAvailable', report: false }]);
  });

  it('writes a held range again while the Node does not show it yet (a Conflict, say), without taking another', () => {
    expect(planAllocation(node('a'), { uid: 'a-uid', cidrs: ['10.0.0.0/24'] }, () => '10.0.1.0/24', false)).toEqual([{ type: 'write', cidr: '10.0.0.0/24' }]);
    expect(planAllocation(node('a', '10.0.0.0/24'), { uid: 'a-uid', cidrs: ['10.0.0.0/24'] }, () => '10.0.1.0/24', false)).toEqual([]);
    expect(planAllocation(undefined, undefined, () => '10.0.1.0/24', false)).toEqual([]);
  });

  it.each<[string, Parameters<typeof planNodeEvent>[0], Parameters<typeof planNodeEvent>[1], ReturnType<typeof planNodeEvent>]>([
    ['a node with a range, first seen: marked', { type: 'ADDED', object: node('a', '10.0.0.0/24') }, undefined, [{ type: 'occupy', node: 'a', uid: 'a-uid', cidrs: ['10.0.0.0/24'] }]],
    ['its heartbeat: nothing', { type: 'MODIFIED', object: node('a', '10.0.0.0/24'), old: node('a', '10.0.0.0/24') }, { uid: 'a-uid', cidrs: ['10.0.0.0/24'] }, []],
    ['podCIDR alone counts as podCIDRs', { type: 'ADDED', object: { ...node('a'), spec: { podCIDR: '10.0.0.0/24' } } }, undefined, [{ type: 'occupy', node: 'a', uid: 'a-uid', cidrs: ['10.0.0.0/24'] }]],
    ['a node without: allocate', { type: 'ADDED', object: node('a') }, undefined, [{ type: 'allocate', node: 'a' }]],
    ['another range than the one held (set by someone else): the held one goes back', { type: 'MODIFIED', object: node('a', '10.0.5.0/24'), old: node('a') }, { uid: 'a-uid', cidrs: ['10.0.0.0/24'] }, [{ type: 'release', node: 'a', cidrs: ['10.0.0.0/24'] }, { type: 'occupy', node: 'a', uid: 'a-uid', cidrs: ['10.0.5.0/24'] }]],
    ['deleted: its range goes back', { type: 'DELETED', object: node('a', '10.0.0.0/24') }, { uid: 'a-uid', cidrs: ['10.0.0.0/24'] }, [{ type: 'release', node: 'a', cidrs: ['10.0.0.0/24'] }, { type: 'forget', node: 'a' }]],
    ['deleted while waiting for a range: it waits no more', { type: 'DELETED', object: node('a') }, undefined, [{ type: 'forget', node: 'a' }]],
    ['a Node of the same name made again: the old one\'s range goes back', { type: 'ADDED', object: node('a', undefined, 'a-2') }, { uid: 'a-uid', cidrs: ['10.0.0.0/24'] }, [{ type: 'release', node: 'a', cidrs: ['10.0.0.0/24'] }, { type: 'allocate', node: 'a' }]],
    ['the delete of an older copy leaves the newer one\'s range', { type: 'DELETED', object: node('a') }, { uid: 'a-2', cidrs: ['10.0.0.0/24'] }, [{ type: 'forget', node: 'a' }]],
  ])('planNodeEvent: %s', (_what, event, held, expected) => {
    expect(planNodeEvent(event, held)).toEqual(expected);
  });
});

describe('the book of node ranges', () => {
  it('forgets a node that waited for a range once it is deleted: a later release plans only those still waiting', () => {
    const book = new CidrBook(clusterCidrConfig('10.0.0.0/24', 24), silentLogger);
    book.take('a', 'a-uid', '10.0.0.0/24');
    for (const name of ['b', 'c']) book.starve(name);
    expect(book.note(planNodeEvent({ type: 'DELETED', object: node('b') }, book.held('b')))).toEqual([]);
    expect(book.isStarved('b')).toBe(false);
    expect(book.note(planNodeEvent({ type: 'DELETED', object: node('a', '10.0.0.0/24') }, book.held('a')))).toEqual(['c']);
  });
});

describe('--cluster-cidr and --node-cidr-mask-size', () => {
  it('default to 127.64.0.0/10 cut into /24s: 16384 node ranges', async () => {
    const { DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_CIDR_MASK_SIZE, CidrSet } = await import('../../../cloud/controllers/nodeipam/index.js');
    expect(new CidrSet(clusterCidrConfig(DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_CIDR_MASK_SIZE)).max).toBe(16384);
  });

  it.each([
    ['127.64.0.0/10', 8, 'Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family (--cluster-cidr 127.64.0.0/10 is a /10, --node-cidr-mask-size is 8)'],
    ['fd00::/48', 64, 'invalid --cluster-cidr "fd00::/48": not an IPv4 CIDR such as 127.64.0.0/10 (kedge allocates IPv4 pod ranges only)'],
    ['127.64.0.0', 24, 'invalid --cluster-cidr "127.64.0.0": not an IPv4 CIDR such as 127.64.0.0/10 (kedge allocates IPv4 pod ranges only)'],
    ['10.0.0.0/33', 24, 'invalid --cluster-cidr "10.0.0.0/33": not an IPv4 CIDR such as 127.64.0.0/10 (kedge allocates IPv4 pod ranges only)'],
    ['0.0.0.0/0', 32, 'invalid --node-cidr-mask-size 32: it cuts 0.0.0.0/0 into 2^32 node ranges; at most 2^24 (use a mask of at most 24)'],
  ])('refuse %s with mask %d', (cidr, mask, message) => {
    expect(() => clusterCidrConfig(cidr, mask)).toThrow(message);
  });

  it('take a cluster CIDR with host bits as its network, as Go does', () => {
    expect(clusterCidrConfig('10.1.2.3/16', 24).cluster).toEqual(clusterCidrConfig('10.1.0.0/16', 24).cluster);
  });
});
