import { describe, expect, it } from 'vitest';
import { Expectations } from '../../../cloud/controllers/replicaset/expectations.js';
import { FakeClock } from '../../../shared/clock.js';

describe('Expectations', () => {
  it('is satisfied for an unknown key, and once every expected creation was seen', () => {
    const e = new Expectations(new FakeClock(), 300_000);
    expect(e.satisfied('ns/rs')).toBe(true);
    e.expectCreations('ns/rs', 2);
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(true);
    e.creationObserved('ns/rs');
    e.expectCreations('ns/rs', 1);
    expect(e.satisfied('ns/rs')).toBe(false);
  });

  it('tracks deletions by uid, so seeing the same pod twice (terminating, then gone) counts once', () => {
    const e = new Expectations(new FakeClock(), 300_000);
    e.expectDeletions('ns/rs', ['a', 'b']);
    e.deletionObserved('ns/rs', 'a');
    e.deletionObserved('ns/rs', 'a');
    expect(e.satisfied('ns/rs')).toBe(false);
    e.deletionObserved('ns/rs', 'other');
    expect(e.satisfied('ns/rs')).toBe(false);
    e.deletionObserved('ns/rs', 'b');
    expect(e.satisfied('ns/rs')).toBe(true);
  });

  it('expires, in case an event was lost, and can be forgotten', async () => {
    const clock = new FakeClock();
    const e = new Expectations(clock, 300_000);
    e.expectCreations('ns/rs', 3);
    await clock.advance(299_999);
    expect(e.satisfied('ns/rs')).toBe(false);
    await clock.advance(1);
    expect(e.satisfied('ns/rs')).toBe(true);
    e.expectCreations('ns/other', 1);
    e.forget('ns/other');
    expect(e.satisfied('ns/other')).toBe(true);
  });
});
