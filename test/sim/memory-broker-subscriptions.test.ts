import { describe, expect, it } from 'vitest';
import { Subscriptions } from '../../sim/memory-broker/subscriptions.js';

describe('memory broker subscriptions', () => {
  it('finds exact and wildcard subscribers of a topic, each once, and nobody else', () => {
    const subs = new Subscriptions<string>();
    subs.add('edge-1', 'kedge/v1/edge-1/down');
    subs.add('edge-2', 'kedge/v1/edge-2/down');
    subs.add('hub', 'kedge/v1/+/up');
    subs.add('hub', 'kedge/v1/#');
    expect(subs.matching('kedge/v1/edge-1/down').sort()).toEqual(['edge-1', 'hub']);
    expect(subs.matching('kedge/v1/edge-2/up')).toEqual(['hub']);
    expect(subs.matching('other/topic')).toEqual([]);
  });

  it('forgets every filter of a removed subscriber and keeps the others', () => {
    const subs = new Subscriptions<string>();
    subs.add('edge-1', 'kedge/v1/edge-1/down');
    subs.add('edge-1b', 'kedge/v1/edge-1/down');
    subs.add('hub', 'kedge/v1/+/up');
    subs.remove('edge-1');
    subs.remove('hub');
    subs.remove('never-subscribed');
    expect(subs.matching('kedge/v1/edge-1/down')).toEqual(['edge-1b']);
    expect(subs.matching('kedge/v1/edge-1/up')).toEqual([]);
  });
});
