import { afterAll, beforeAll } from 'vitest';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { openTestStore, startTestEtcd } from '../support/etcd.js';
import { storeContract } from './store.contract.js';

// One etcd member for the file; each test's store has a key prefix of its own.
let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await startTestEtcd();
});
afterAll(async () => {
  await etcd?.close();
});

storeContract('EtcdStore', async (options) => {
  const store = await openTestStore(etcd, options);
  return { store, cleanup: () => store.close() };
});
