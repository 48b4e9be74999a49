import mqemitter from 'mqemitter';

/** What mqemitter 7 asks of its matcher (a qlobber Qlobber): the listeners whose topic filter a topic matches. */
interface Matcher {
  add(filter: string, listener: unknown): unknown;
  remove(filter: string, listener?: unknown): unknown;
  match(topic: string): unknown[];
}

/** Topics whose listeners are kept at once; past that the cache starts again (a node has three topics it publishes to). */
export const CACHED_TOPICS = 10_000;

/**
 * A matcher that remembers each topic's listeners until the subscriptions change: in kedge every
 * message of a node goes to its own few topics, which match the hub's wildcard subscriptions the
 * same way every time, and each match splits the topic and walks the trie again. A change of any
 * subscription forgets everything. The list handed out is never changed afterwards (a new list is
 * matched after a change), as the matcher's own fresh lists are not.
 */
export class CachedMatcher implements Matcher {
  private readonly cache = new Map<string, unknown[]>();

  constructor(private readonly matcher: Matcher) {}

  add(filter: string, listener: unknown): unknown {
    this.cache.clear();
    return this.matcher.add(filter, listener);
  }

  remove(filter: string, listener?: unknown): unknown {
    this.cache.clear();
    return this.matcher.remove(filter, listener);
  }

  match(topic: string): unknown[] {
    let listeners = this.cache.get(topic);
    if (listeners === undefined) {
      listeners = this.matcher.match(topic);
      if (this.cache.size >= CACHED_TOPICS) this.cache.clear();
      this.cache.set(topic, listeners);
    }
    return listeners;
  }
}

/**
 * aedes' message emitter as aedes makes it by default (mqemitter, concurrency 100, empty levels
 * matched [MQTT-4.7.1-3]), with its topic matching cached (CachedMatcher).
 */
export function cachedEmitter(concurrency = 100): mqemitter.MQEmitter {
  const emitter = mqemitter({ concurrency, matchEmptyLevels: true });
  const inside = emitter as unknown as { _matcher?: Matcher };
  if (typeof inside._matcher?.match !== 'function') throw new Error('mqemitter has no _matcher to cache: the installed version is not the one kedge was written for (7.1)');
  inside._matcher = new CachedMatcher(inside._matcher);
  return emitter;
}
