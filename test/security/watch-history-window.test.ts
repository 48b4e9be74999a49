import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { firstValueFrom, toArray, takeWhile, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { WatchEvent } from '../../cloud/store/store.js';
import { isKedgeError } from '../../shared/errors.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const WINDOW = 10_000; // the stores' default history window

/** Lets the values of WeakRefs made in this job go (a WeakRef keeps its target until the job ends). */
const nextJob = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("the store's watch history holds at most its window", () => {
  it('lets go of every change older than the window as soon as it falls out', async () => {
    const store = new MemoryStore();
    const values: WeakRef<object>[] = [];
    // 1.9 windows of updates to one key: each value is held by its own event and the next one's prevKv.
    const writes = Math.floor(WINDOW * 1.9);
    await store.create('/k', { n: 0 });
    for (let n = 1; n <= writes; n++) {
      const value = { n, pad: 'x'.repeat(16) };
      values.push(new WeakRef(value));
      await store.update('/k', value);
    }
    await nextJob();
    collectGarbage();
    const revision = store.revision;
    // values[i] was written at revision i + 2; the window keeps revisions (revision - WINDOW, revision].
    const outside = values.slice(0, revision - WINDOW - 3);
    const held = outside.filter((ref) => ref.deref() !== undefined).length;
    expect({ outside: outside.length, held }).toEqual({ outside: revision - WINDOW - 3, held: 0 });
    expect(values.slice(-WINDOW + 1).every((ref) => ref.deref() !== undefined)).toBe(true);
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
