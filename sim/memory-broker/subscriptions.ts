import { matchesFilter } from './topic-filter.js';

const hasWildcard = (filter: string): boolean => filter.includes('+') || filter.includes('#');

/**
 * Who subscribed to what, found by topic. A node subscribes to its own exact topics, the hub to
 * a few wildcard filters: exact filters are looked up, only wildcard ones are matched, so a
 * publish costs the same with 10 subscribers or 2,000.
 */
export class Subscriptions<S> {
  private readonly exact = new Map<string, Set<S>>();
  private readonly wildcard = new Map<string, Set<S>>();
  private readonly bySubscriber = new Map<S, Set<string>>();

  add(subscriber: S, filter: string): void {
    const index = hasWildcard(filter) ? this.wildcard : this.exact;
    let subscribers = index.get(filter);
    if (!subscribers) index.set(filter, (subscribers = new Set()));
    subscribers.add(subscriber);
    let filters = this.bySubscriber.get(subscriber);
    if (!filters) this.bySubscriber.set(subscriber, (filters = new Set()));
    filters.add(filter);
  }

  /** Forgets every filter of `subscriber`. */
  remove(subscriber: S): void {
    for (const filter of this.bySubscriber.get(subscriber) ?? []) {
      const index = hasWildcard(filter) ? this.wildcard : this.exact;
      const subscribers = index.get(filter);
      subscribers?.delete(subscriber);
      if (subscribers?.size === 0) index.delete(filter);
    }
    this.bySubscriber.delete(subscriber);
  }

  /** Each subscriber with a filter matching `topic`, once however many of its filters match. */
  matching(topic: string): S[] {
    const found = new Set(this.exact.get(topic));
    for (const [filter, subscribers] of this.wildcard) {
      if (matchesFilter(filter, topic)) for (const s of subscribers) found.add(s);
    }
    return [...found];
  }
}
