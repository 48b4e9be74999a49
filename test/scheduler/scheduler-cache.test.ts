import { describe, expect, it } from 'vitest';
import { podRequests } from '../../cloud/scheduler/pod-placement.js';
import { SchedulerCache } from '../../cloud/scheduler/scheduler-cache.js';
import { node, pod } from './fixtures.js';

const p = { ...pod(), metadata: { ...pod().metadata, uid: 'u1' } };

describe('SchedulerCache', () => {
  it('says when a pod leaving a node made room there', () => {
    const cache = new SchedulerCache();
    expect(cache.storePod('ns/p', p, undefined)).toBe(false);
    expect(cache.storePod('ns/p', p, 'a')).toBe(false);
    expect(cache.storePod('ns/p', p, 'a')).toBe(false);
    expect(cache.storePod('ns/p', p, undefined)).toBe(true);
    cache.storePod('ns/p', p, 'a');
    expect(cache.removePod('ns/p', 'u1')).toBe(true);
    expect(cache.removePod('ns/p', 'u1')).toBe(false);
  });

  it('counts an assumed pod on its node until the binding fails, then restores the pod the watch showed', () => {
    const cache = new SchedulerCache();
    cache.storeNode(node('a'));
    cache.storePod('ns/p', p, undefined);
    cache.unschedulable.add('ns/p');
    cache.assume('ns/p', p, 'a', podRequests(p));
    expect(cache.unschedulable.has('ns/p')).toBe(false);
    expect(cache.assumedNode('ns/p')).toBe('a');
    expect(cache.pod('ns/p')?.spec.nodeName).toBe('a');
    expect(cache.nodes.get('a')?.used.pods).toBe(1);

    expect(cache.unassume('ns/p', p, 'a')).toBe(true);
    expect(cache.assumedNode('ns/p')).toBeUndefined();
    expect(cache.pod('ns/p')).toBe(p);
    expect(cache.nodes.get('a')?.used.pods).toBe(0);
  });

  it('keeps what the watch showed meanwhile when a binding fails', () => {
    const cache = new SchedulerCache();
    cache.assume('ns/p', p, 'a', podRequests(p));
    const elsewhere = { ...p, spec: { ...p.spec, nodeName: 'b' } };
    cache.storePod('ns/p', elsewhere, 'b');
    cache.unassume('ns/p', p, 'a');
    expect(cache.pod('ns/p')).toBe(elsewhere);
  });

  it('forgets a bound assumption once written', () => {
    const cache = new SchedulerCache();
    cache.assume('ns/p', p, 'a', podRequests(p));
    cache.bound('ns/p');
    expect(cache.assumedNode('ns/p')).toBeUndefined();
    expect(cache.pod('ns/p')?.spec.nodeName).toBe('a');
  });
});
