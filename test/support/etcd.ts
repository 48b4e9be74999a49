import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { openEtcdStore } from '../../cloud/store/etcd/open-etcd-store.js';
import type { EtcdStore, EtcdStoreOptions } from '../../cloud/store/etcd/etcd-store.js';
import { startEtcdCluster, type EtcdCluster } from '../../sim/etcd/etcd-cluster.js';

/** A real etcd (Debian's etcd-server) of `size` members for one test file. */
export function startTestEtcd(size = 1): Promise<EtcdCluster> {
  return startEtcdCluster({ size, clock: realClock });
}

/** A key prefix no other test uses, so tests on one etcd stay independent. */
export const freshPrefix = (): string => `/test-${randomUUID()}`;

/** An EtcdStore on `cluster` under a fresh prefix (unless given). */
export function openTestStore(cluster: EtcdCluster, options: EtcdStoreOptions & { requestTimeoutMs?: number } = {}): Promise<EtcdStore> {
  return openEtcdStore({ endpoints: cluster.endpoints, prefix: freshPrefix(), ...options });
}

/** A one-member etcd for a test file, and the stores its tests open on it (each closed after its test). */
export function etcdForFile(): { cluster: () => EtcdCluster; track: (store: EtcdStore) => EtcdStore } {
  let etcd: EtcdCluster | undefined;
  const stores: EtcdStore[] = [];
  beforeAll(async () => {
    etcd = await startTestEtcd(1);
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  afterAll(async () => {
    await etcd?.close();
  });
  return {
    cluster: () => etcd!,
    track: (store) => {
      stores.push(store);
      return store;
    },
  };
}
