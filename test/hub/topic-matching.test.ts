import { afterEach, describe, expect, it } from 'vitest';
import { CACHED_TOPICS, CachedMatcher, cachedEmitter } from '../../cloud/hub/topic-matching.js';
import { brokerWithClients } from '../support/test-broker.js';
import { waitFor } from '../support/wait.js';

/** A matcher that counts its matches: exact topics only, enough to see what the cache asks of it. */
class CountingMatcher {
  matches = 0;
  private readonly listeners = new Map<string, unknown[]>();
  add(filter: string, listener: unknown): void {
    this.listeners.set(filter, [...(this.listeners.get(filter) ?? []), listener]);
  }
  remove(filter: string, listener?: unknown): void {
    this.listeners.set(filter, (this.listeners.get(filter) ?? []).filter((l) => listener !== undefined && l !== listener));
  }
  match(topic: string): unknown[] {
    this.matches++;
    return [...(this.listeners.get(topic) ?? [])];
  }
}

describe('cached topic matching', () => {
  it('matches a topic once until the subscriptions change', () => {
    const inner = new CountingMatcher();
    const matcher = new CachedMatcher(inner);
    matcher.add('kedge/v1/a/up', 'hub');
    for (let i = 0; i < 5; i++) expect(matcher.match('kedge/v1/a/up')).toEqual(['hub']);
    expect(inner.matches).toBe(1);
  });

  it('sees every change of the subscriptions at the next match, and never changes a list it handed out', () => {
    const matcher = new CachedMatcher(new CountingMatcher());
    matcher.add('t', 'one');
    const before = matcher.match('t');
    matcher.add('t', 'two');
    expect(matcher.match('t')).toEqual(['one', 'two']);
    matcher.remove('t', 'one');
    expect(matcher.match('t')).toEqual(['two']);
    expect(before).toEqual(['one']);
  });

  it(`keeps at most ${CACHED_TOPICS} topics`, () => {
    const inner = new CountingMatcher();
    const matcher = new CachedMatcher(inner);
    for (let i = 0; i <= CACHED_TOPICS; i++) matcher.match(`t/${i}`);
    matcher.match('t/0');
    expect(inner.matches).toBe(CACHED_TOPICS + 2); // t/0 was forgotten with the rest when the cache filled
  });

  describe('in aedes', () => {
    const fixture = brokerWithClients();
    afterEach(() => fixture.close());

    it('delivers to the subscribers of the moment, as they subscribe and unsubscribe', async () => {
      await fixture.start({ mq: cachedEmitter() });
      const wide = await fixture.connect('wide');
      const narrow = await fixture.connect('narrow');
      const publisher = await fixture.connect('publisher');
      await wide.client.subscribeAsync('t/+', { qos: 1 });
      await publisher.client.publishAsync('t/1', 'one', { qos: 1 });
      await narrow.client.subscribeAsync(['t/1', 'u/1'], { qos: 1 });
      await publisher.client.publishAsync('t/1', 'two', { qos: 1 });
      await waitFor(() => narrow.got.length === 1, 'the second message at narrow');
      await narrow.client.unsubscribeAsync('t/1');
      await publisher.client.publishAsync('t/1', 'three', { qos: 1 });
      await publisher.client.publishAsync('u/1', 'four', { qos: 1 });
      await waitFor(() => wide.got.length === 3 && narrow.got.length >= 2, 'every delivery');
      expect(wide.got).toEqual(['one', 'two', 'three']);
      expect(narrow.got).toEqual(['two', 'four']); // 'three' would have come before 'four'
    });
  });
});
