import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCloudEtcdStore } from '../../cloud/store/etcd/open-etcd-store.js';
import type { EtcdStore } from '../../cloud/store/etcd/etcd-store.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { freshPrefix, startTestEtcd } from '../support/etcd.js';
import { waitFor } from '../support/wait.js';

const INTERVAL_MS = 60_000;

/** --etcd-compaction-interval as kube-apiserver's: two clouds on one etcd compact once per interval between them, to the revision of the round before. */
describe('compaction of etcd by the clouds on it', () => {
  let etcd: EtcdCluster;
  let raw: Etcd3;
  const stores: EtcdStore[] = [];
  beforeAll(async () => {
    etcd = await startTestEtcd(1);
    raw = new Etcd3({ hosts: etcd.endpoints });
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    raw?.close();
    await etcd?.close();
  });

  it('compacts behind an interval of history, one cloud per round', async () => {
    const clock = new FakeClock();
    const logs = [memoryLogger('a'), memoryLogger('b')];
    const prefix = freshPrefix();
    for (const logger of logs) stores.push(await openCloudEtcdStore({ endpoints: etcd.endpoints, prefix, compactionIntervalMs: INTERVAL_MS }, { clock, logger }));
    const [a, b] = stores as [EtcdStore, EtcdStore];
    const compactions = (): string[] => logs.flatMap((l) => l.lines.filter((line) => line.includes('compacted etcd')));
    const round = async (): Promise<void> => {
      const before = Number((await raw.get('compact_rev_key').exec()).header.revision);
      await clock.advance(INTERVAL_MS);
      // Both clouds try; the round is over once each has seen the key move past where it was.
      await waitFor(async () => Number((await raw.get('compact_rev_key').exec()).kvs[0]?.version ?? 0) > 0 && Number((await raw.get('compact_rev_key').exec()).header.revision) > before, 'a compaction round');
      await waitFor(() => logs.every((l) => !l.lines.some((line) => line.includes('compaction failed'))), 'no failed round');
    };

    const first = await a.create('/registry/configmaps/default/x', { v: 1 });
    await round();
    expect(compactions()).toEqual([]); // the first round only marks where the next compacts to
    await b.update('/registry/configmaps/default/x', { v: 2 });
    await round();
    await waitFor(() => compactions().length === 1, 'one compaction');
    const compactedTo = Number(await raw.get('compact_rev_key').string());
    expect(compactedTo).toBeGreaterThanOrEqual(first.modRevision);
    await expect(raw.get(`${prefix}/configmaps/default/x`).revision(String(first.modRevision - 1)).exec()).rejects.toThrow(/compacted/);
    expect(Math.max(a.compactedRevision, b.compactedRevision)).toBe(compactedTo);
    expect((await a.get('/registry/configmaps/default/x'))?.value).toEqual({ v: 2 });
  });
});
