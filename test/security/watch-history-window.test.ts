import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { firstValueFrom, toArray, takeWhile, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { WatchEvent } from '../../cloud/store/store.js';
import { FakeClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const FRESH_MS = 75_000; // kube's watch cache keeps every event of the last 75 s
const STEP_MS = 10;

/** Lets the values of WeakRefs made in this job go (a WeakRef keeps its target until the job ends). */
const nextJob = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("the store's watch history holds at most its window", () => {
  it('lets go of every change older than the window as soon as it falls out', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore({ clock });
    const values: WeakRef<object>[] = [];
    // 190 s of updates to one key, one per 10 ms: each value is held by its own event and the next one's prevKv.
    const writes = 19_000;
    await store.create('/k', { n: 0 });
    for (let n = 1; n <= writes; n++) {
      await clock.advance(STEP_MS);
      const value = { n, pad: 'x'.repeat(16) };
      values.push(new WeakRef(value));
      await store.update('/k', value);
    }
    await nextJob();
    collectGarbage();
    // value n (values[n - 1]) goes once the event after it is older than the window: n < writes - 7,501.
    const freshEvents = FRESH_MS / STEP_MS;
    const outside = values.slice(0, writes - freshEvents - 2);
    const held = outside.filter((ref) => ref.deref() !== undefined).length;
    expect({ outside: outside.length, held }).toEqual({ outside: writes - freshEvents - 2, held: 0 });
    expect(values.slice(-freshEvents + 1).every((ref) => ref.deref() !== undefined)).toBe(true);
    await store.close();
  });

  it('replays exactly the window, and answers 410 Expired just before it', async () => {
    const store = new MemoryStore({ historySize: 100 });
    for (let n = 0; n < 250; n++) await store.create(`/k/${n}`, { n });
    const revision = store.revision;
    const oldest = revision - 100;
    expect(store.compactedRevision).toBe(oldest);
    const replayed = await firstValueFrom(upTo(store.watch('/', oldest), revision).pipe(toArray()));
    expect(replayed.map((e) => e.kv.modRevision)).toEqual(Array.from({ length: 100 }, (_, i) => oldest + 1 + i));
    const err = await firstValueFrom(store.watch('/', oldest - 1)).catch((e: unknown) => e);
    expect(isKedgeError(err, 'Expired')).toBe(true);
    await store.compact(revision - 10);
    expect(await firstValueFrom(upTo(store.watch('/', revision - 10), revision).pipe(toArray()))).toHaveLength(10);
    await store.close();
  });
});

function upTo(events: Observable<WatchEvent>, revision: number): Observable<WatchEvent> {
  return events.pipe(takeWhile((e) => e.kv.modRevision < revision, true));
}
