import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podsIn, type LocalCache } from '../../edge/metamanager/local-cache.js';
import { MAX_TOMBSTONES } from '../../edge/metamanager/tombstones.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { Pod, PodStatus } from '../../shared/types.js';
import { pod } from './fixtures.js';

export interface CacheHarness {
  cache: LocalCache;
  /** Opens the same cache again, as a restarted edge would; undefined when nothing persists. */
  reopen?: () => Promise<LocalCache>;
  cleanup(): Promise<void>;
}

const ref = (name: string, uid: string, resourceVersion: string): ObjectRef => ({ kind: 'Pod', namespace: 'default', name, uid, resourceVersion });
const podAt = (name: string, uid: string, rv: string, image = 'nginx') => {
  const p = pod(name, uid, { containers: [{ name: 'app', image }] });
  p.metadata.resourceVersion = rv;
  return p;
};
const running: PodStatus = { phase: 'Running' };
const pending: PodStatus = { phase: 'Pending' };

/** The LocalCache contract: every implementation must pass it. */
export function localCacheContract(name: string, open: () => Promise<CacheHarness>): void {
  describe(`LocalCache contract: ${name}`, () => {
    let h: CacheHarness;
    beforeEach(async () => {
      h = await open();
    });
    afterEach(() => h.cleanup());

    it('apply stores an object under its uid with name, namespace and resourceVersion', () => {
      expect(h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'))).toBe('created');
      expect(h.cache.objects()).toEqual([
        { uid: 'u1', kind: 'Pod', namespace: 'default', name: 'p', resourceVersion: '5', object: podAt('p', 'u1', '5') },
      ]);
    });

    it('[SYNC-6] a newer resourceVersion updates; older or equal is ignored', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5', 'v5'));
      expect(h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5', 'again'))).toBe('ignored');
      expect(h.cache.apply(ref('p', 'u1', '4'), podAt('p', 'u1', '4', 'v4'))).toBe('ignored');
      expect(h.cache.apply(ref('p', 'u1', '10'), podAt('p', 'u1', '10', 'v10'))).toBe('updated');
      expect(h.cache.objects().map((o) => [o.resourceVersion, (o.object as Pod).spec.containers[0]!.image])).toEqual([['10', 'v10']]);
    });

    it('[SYNC-6] a different uid under the same name at a higher resourceVersion replaces the old object (and its pending status)', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      h.cache.queueStatus(ref('p', 'u1', '5'), running);
      expect(h.cache.apply(ref('p', 'u2', '8'), podAt('p', 'u2', '8'))).toBe('replaced');
      expect(h.cache.objects().map((o) => o.uid)).toEqual(['u2']);
      expect(h.cache.outbox()).toEqual([]);
      // [SYNC-13] the replaced uid is dead: a late apply for it is ignored
      expect(h.cache.tombstoned('u1')).toBe(true);
      expect(h.cache.apply(ref('p', 'u1', '7'), podAt('p', 'u1', '7'))).toBe('ignored');
      expect(h.cache.objects().map((o) => o.uid)).toEqual(['u2']);
    });

    it('[SYNC-13] an apply older than the object now under its name is ignored, and its uid tombstoned', () => {
      h.cache.apply(ref('p', 'u2', '8'), podAt('p', 'u2', '8'));
      expect(h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'))).toBe('ignored');
      expect(h.cache.tombstoned('u1')).toBe(true);
      expect(h.cache.objects().map((o) => [o.uid, o.resourceVersion])).toEqual([['u2', '8']]);
    });

    it('[SYNC-13] a deleted uid is never applied again, whatever its resourceVersion', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      expect(h.cache.delete(ref('p', 'u1', '6'))).toBe(true);
      expect(h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'))).toBe('ignored');
      expect(h.cache.apply(ref('p', 'u1', '9'), podAt('p', 'u1', '9'))).toBe('ignored');
      expect(h.cache.objects()).toEqual([]);
      expect(h.cache.apply(ref('p', 'u2', '10'), podAt('p', 'u2', '10'))).toBe('created');
    });

    it('[SYNC-13] a delete that overtook its apply still wins', () => {
      expect(h.cache.delete(ref('p', 'u1', '6'))).toBe(false);
      expect(h.cache.tombstoned('u1')).toBe(true);
      expect(h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'))).toBe('ignored');
      expect(h.cache.objects()).toEqual([]);
    });

    it(`[SYNC-13] remembers the most recent ${MAX_TOMBSTONES} deleted uids, across a restart`, async () => {
      for (let i = 0; i < MAX_TOMBSTONES + 5; i++) h.cache.delete(ref('p', `d${i}`, '1'));
      const check = (c: LocalCache) => [c.tombstoned('d0'), c.tombstoned('d4'), c.tombstoned('d5'), c.tombstoned(`d${MAX_TOMBSTONES + 4}`)];
      expect(check(h.cache)).toEqual([false, false, true, true]);
      await h.cache.flush();
      if (h.reopen) expect(check(await h.reopen())).toEqual([false, false, true, true]);
    });

    it('[SYNC-7] delete applies only to the same uid', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      expect(h.cache.delete(ref('p', 'u0', '5'))).toBe(false);
      expect(h.cache.objects()).toHaveLength(1);
      expect(h.cache.delete(ref('p', 'u1', '5'))).toBe(true);
      expect(h.cache.objects()).toEqual([]);
      expect(h.cache.delete(ref('p', 'u1', '5'))).toBe(false);
    });

    it('[SYNC-8] what was flushed is there after a restart, tombstones included', async () => {
      if (!h.reopen) return;
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      h.cache.delete(ref('p', 'u1', '5'));
      await h.cache.flush();
      const again = await h.reopen();
      expect(again.tombstoned('u1')).toBe(true);
      expect(again.apply(ref('p', 'u1', '6'), podAt('p', 'u1', '6'))).toBe('ignored');
    });

    it('shares its entries read-only: changing one throws and the cache stays as it was', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      const held = h.cache.objects()[0]! as { object: { spec: { containers: unknown[] } } };
      expect(() => (held.object.spec.containers = [])).toThrow(TypeError);
      expect(podsIn(h.cache)[0]!.spec.containers).toHaveLength(1);
    });

    it('[SYNC-12] the outbox keeps only the newest status per uid; the object carries it', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      h.cache.queueStatus(ref('p', 'u1', '5'), pending);
      const newest = h.cache.queueStatus(ref('p', 'u1', '5'), running);
      expect(h.cache.outbox()).toEqual([{ ref: ref('p', 'u1', '5'), status: running, version: newest.version }]);
      expect(podsIn(h.cache)[0]!.status).toEqual(running);
    });

    it('an ack removes a status only at the version that was sent', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      const sent = h.cache.queueStatus(ref('p', 'u1', '5'), pending);
      const newer = h.cache.queueStatus(ref('p', 'u1', '5'), running);
      expect(h.cache.ackStatus('u1', sent.version)).toBe(false);
      expect(h.cache.outbox()).toHaveLength(1);
      expect(h.cache.ackStatus('u1', newer.version)).toBe(true);
      expect(h.cache.outbox()).toEqual([]);
    });

    it('a newer spec from the cloud keeps the status the edge reported; until it reported one, the cloud\'s counts', () => {
      h.cache.apply(ref('p', 'u1', '5'), { ...podAt('p', 'u1', '5'), status: pending });
      h.cache.apply(ref('p', 'u1', '6'), { ...podAt('p', 'u1', '6'), status: running });
      expect(podsIn(h.cache)[0]!.status).toEqual(running);
      const queued = h.cache.queueStatus(ref('p', 'u1', '6'), pending);
      h.cache.apply(ref('p', 'u1', '7'), { ...podAt('p', 'u1', '7'), status: running });
      expect(h.cache.objects()[0]).toMatchObject({ resourceVersion: '7', statusVersion: queued.version, object: { status: pending } });
    });

    it('status versions grow strictly and are at least the time given', () => {
      h.cache.apply(ref('p', 'u1', '5'), podAt('p', 'u1', '5'));
      const a = h.cache.queueStatus(ref('p', 'u1', '5'), pending, 1_000);
      const b = h.cache.queueStatus(ref('p', 'u1', '5'), running, 1_000);
      const c = h.cache.queueStatus(ref('p', 'u1', '5'), pending, 500);
      const d = h.cache.queueStatus(ref('p', 'u1', '5'), running, 5_000);
      expect([a.version, b.version, c.version, d.version]).toEqual([1_000, 1_001, 1_002, 5_000]);
    });

    it('the outbox lists oldest first', () => {
      h.cache.apply(ref('a', 'ua', '1'), podAt('a', 'ua', '1'));
      h.cache.apply(ref('b', 'ub', '1'), podAt('b', 'ub', '1'));
      h.cache.queueStatus(ref('b', 'ub', '1'), running);
      h.cache.queueStatus(ref('a', 'ua', '1'), running);
      expect(h.cache.outbox().map((e) => e.ref.uid)).toEqual(['ub', 'ua']);
    });

    it('[SYNC-18] find: the object held under a kind, namespace and name, whatever its uid; after a restart too', async () => {
      const cm = (uid: string, rv: string) => ({ kind: 'ConfigMap', namespace: 'default', name: 'cfg', uid, resourceVersion: rv });
      h.cache.apply(cm('c1', '3'), { metadata: { namespace: 'default', name: 'cfg', uid: 'c1' }, data: { a: '1' } });
      h.cache.apply(ref('cfg', 'p1', '4'), podAt('cfg', 'p1', '4'));
      expect([h.cache.find('ConfigMap', 'default', 'cfg')?.uid, h.cache.find('Pod', 'default', 'cfg')?.uid, h.cache.find('Secret', 'default', 'cfg')]).toEqual(['c1', 'p1', undefined]);
      h.cache.apply(cm('c2', '9'), { metadata: { namespace: 'default', name: 'cfg', uid: 'c2' }, data: { a: '2' } });
      expect(h.cache.find('ConfigMap', 'default', 'cfg')?.uid).toBe('c2');
      await h.cache.flush();
      if (h.reopen) expect((await h.reopen()).find('ConfigMap', 'default', 'cfg')?.uid).toBe('c2');
      h.cache.delete(cm('c2', '9'));
      expect(h.cache.find('ConfigMap', 'default', 'cfg')).toBeUndefined();
    });

    it('concurrent flushes all resolve', async () => {
      h.cache.apply(ref('a', 'ua', '1'), podAt('a', 'ua', '1'));
      const first = h.cache.flush();
      h.cache.apply(ref('b', 'ub', '1'), podAt('b', 'ub', '1'));
      await Promise.all([first, h.cache.flush(), h.cache.flush()]);
    });

    it('[SYNC-8] what was flushed is there after a restart', async () => {
      if (!h.reopen) return;
      h.cache.apply(ref('a', 'ua', '1'), podAt('a', 'ua', '1'));
      h.cache.apply(ref('b', 'ub', '2'), podAt('b', 'ub', '2'));
      const queued = h.cache.queueStatus(ref('a', 'ua', '1'), running);
      const first = h.cache.flush();
      h.cache.delete(ref('b', 'ub', '2')); // a change while the first write runs
      await Promise.all([first, h.cache.flush()]);
      const again = await h.reopen();
      expect(again.objects().map((o) => o.uid)).toEqual(['ua']);
      expect(again.outbox()).toEqual([{ ref: ref('a', 'ua', '1'), status: running, version: queued.version }]);
      // versions keep growing across restarts, so an old ack never removes a newer status
      expect(again.queueStatus(ref('a', 'ua', '1'), pending).version).toBeGreaterThan(queued.version);
    });
  });
}
