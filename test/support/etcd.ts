import { randomUUID } from 'node:crypto';
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
