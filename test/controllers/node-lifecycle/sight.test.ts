import { describe, expect, it } from 'vitest';
import { NodeMemories } from '../../../cloud/controllers/node-lifecycle/memory.js';
import { recounted, sightAfterFailure, sightOnRelist, type Sight } from '../../../cloud/controllers/node-lifecycle/sight.js';
import { FakeClock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import { T0 } from './builders.js';

describe('blind mode', () => {
  it.each<[string, Sight, unknown, Sight]>([
    ['the store down: blind', 'seeing', new KedgeError('Unavailable', 'store down'), 'blind'],
    ['a conflict: still seeing', 'seeing', new KedgeError('Conflict', 'changed'), 'seeing'],
    ['the node gone: still seeing', 'seeing', new KedgeError('NotFound', 'gone'), 'seeing'],
    ['any other error: still seeing', 'seeing', new Error('boom'), 'seeing'],
    ['already blind stays blind', 'blind', new KedgeError('Conflict', 'changed'), 'blind'],
  ])('after a failed health write, %s', (_name, before, err, after) => expect(sightAfterFailure(before, err)).toBe(after));

  it.each<[Sight, { sight: Sight; recount: boolean }]>([
    ['blind', { sight: 'seeing', recount: true }],
    ['seeing', { sight: 'seeing', recount: false }],
  ])('on a fresh list of the nodes while %s', (before, after) => expect(sightOnRelist(before)).toEqual(after));

  it('counts silence afresh: the probe time becomes now, the rest is kept', () => {
    expect(recounted({ heartbeat: 'h', probeTime: T0 - 120_000, lastReady: 'True' }, T0)).toEqual({ heartbeat: 'h', probeTime: T0, lastReady: 'True' });
  });

  it('recounts every remembered node', () => {
    const memories = new NodeMemories(new FakeClock(T0));
    memories.of('a').probe = { heartbeat: 'h', probeTime: T0 - 120_000 };
    memories.of('b');
    memories.recountSilence(T0);
    expect(memories.of('a').probe?.probeTime).toBe(T0);
    expect(memories.of('b').probe).toBeUndefined();
  });
});

describe('NodeMemories wake-ups', () => {
  it('keeps one wake-up per node, measured from the clock now, none once closed', async () => {
    const clock = new FakeClock(T0);
    const memories = new NodeMemories(clock);
    const woken: string[] = [];
    memories.wakeAt('a', T0 + 5_000, () => woken.push('a@5'));
    memories.wakeAt('a', T0 + 3_000, () => woken.push('a@3'));
    memories.wakeAt('b', T0 - 1_000, () => woken.push('b@past'));
    memories.wakeAt('c', T0 + 1_000, () => woken.push('c'));
    memories.wakeAt('c', undefined, () => woken.push('c again'));
    await clock.advance(10_000);
    expect(woken).toEqual(['b@past', 'a@3']);
    memories.close();
    memories.wakeAt('a', T0 + 20_000, () => woken.push('after close'));
    expect(clock.pending).toBe(0);
  });

  it('forgets a node with its wake-up', () => {
    const clock = new FakeClock(T0);
    const memories = new NodeMemories(clock);
    memories.of('a').probe = { heartbeat: 'h', probeTime: T0 };
    memories.wakeAt('a', T0 + 1_000, () => undefined);
    memories.forget('a');
    expect(clock.pending).toBe(0);
    expect(memories.of('a').probe).toBeUndefined();
  });
});
