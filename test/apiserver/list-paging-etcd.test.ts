import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { createApiServer, type ApiServer } from '../../cloud/apiserver/pipeline.js';
import type { EtcdStore } from '../../cloud/store/etcd/etcd-store.js';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { freshPrefix, openTestStore, startTestEtcd } from '../support/etcd.js';

const pods = '/api/v1/namespaces/default/pods';
const TOKEN = 't';

interface Reply {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items?: Pod[];
  message?: string;
}

/** Continued and Exact lists on etcd: read at a revision by etcd itself, 410 once etcd compacted it. */
describe('lists at a revision on etcd', () => {
  let etcd: EtcdCluster;
  let store: EtcdStore;
  let api: ApiServer;
  const prefix = freshPrefix();
  const get = async (query: Record<string, string>): Promise<{ status: number; body: Reply }> => {
    const res = await api.handle({ method: 'GET', path: pods, query: new URLSearchParams(query), headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}` } });
    if (res.type !== 'json') throw new Error('not JSON');
    return { status: res.status, body: res.body as Reply };
  };
  const names = (body: Reply): string[] => (body.items ?? []).map((p) => p.metadata.name!);

  beforeAll(async () => {
    etcd = await startTestEtcd();
    store = await openTestStore(etcd, { prefix });
    api = createApiServer({ store, clock: new FakeClock(), logger: silentLogger, tokens: [{ token: TOKEN, user: 'admin', role: 'admin' }] });
    const client = api.loopback(TOKEN);
    await ensureSystemNamespaces(client);
    for (const name of ['a', 'b', 'c', 'd']) {
      await client.create({ resource: 'pods', namespace: 'default' }, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } as Pod);
    }
  }, 30_000);
  afterAll(async () => {
    await store?.close();
    await etcd?.close();
  });

  it('continues at the first page, then hands out an inconsistent token once etcd compacted it', async () => {
    const first = await get({ limit: '1' });
    expect(names(first.body)).toEqual(['a']);
    expect(first.body.metadata.remainingItemCount).toBe(3);
    await api.loopback(TOKEN).delete({ resource: 'pods', namespace: 'default', name: 'b' });
    const second = await get({ limit: '1', continue: first.body.metadata.continue! });
    expect([names(second.body), second.body.metadata.resourceVersion]).toEqual([['b'], first.body.metadata.resourceVersion]);
    const exact = await get({ resourceVersion: first.body.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    expect(names(exact.body)).toEqual(['a', 'b', 'c', 'd']);

    await store.compact(store.revision);
    const expired = await get({ limit: '1', continue: second.body.metadata.continue! });
    expect(expired.status).toBe(410);
    expect(expired.body.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\. You can start a new list/);
    const rest = await get({ continue: expired.body.metadata.continue! });
    expect(names(rest.body)).toEqual(['c', 'd']);
    const old = await get({ resourceVersion: first.body.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    expect([old.status, old.body.message]).toEqual([410, 'The resourceVersion for the provided list is too old.']);
  });

  it("answers a list not older than another cloud's write at once, though this store's watch has not shown it yet", async () => {
    const other = await openTestStore(etcd, { prefix });
    try {
      for (const name of ['e', 'f', 'g']) {
        const written = await other.create(`/registry/pods/default/${name}`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
        const listed = await get({ resourceVersion: String(written.modRevision), resourceVersionMatch: 'NotOlderThan' });
        expect([listed.status, names(listed.body).includes(name)]).toEqual([200, true]);
      }
    } finally {
      await other.close();
    }
  });
});
