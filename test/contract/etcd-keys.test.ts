import { Etcd3 } from 'etcd3';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdKeys } from '../../cloud/store/etcd/etcd-keys.js';
import { openCloudEtcdStore } from '../../cloud/store/etcd/open-etcd-store.js';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { freshPrefix, startTestEtcd } from '../support/etcd.js';

describe('EtcdKeys', () => {
  it('swaps the root every key begins with for the prefix, and back', () => {
    const keys = new EtcdKeys('/registry', '/registry');
    expect(keys.toEtcd('/registry/pods/default/web-1').toString()).toBe('/registry/pods/default/web-1');
    expect(keys.fromEtcd(Buffer.from('/registry/pods/default/web-1'))).toBe('/registry/pods/default/web-1');
    const other = new EtcdKeys('/kedge-a', '/registry');
    expect(other.toEtcd('/registry/pods/').toString()).toBe('/kedge-a/pods/');
    expect(other.fromEtcd(Buffer.from('/kedge-a/pods/x'))).toBe('/registry/pods/x');
  });

  it('reads a prefix wider than the root as the whole store, and refuses a key outside it', () => {
    const keys = new EtcdKeys('/kedge-a', '/registry');
    expect(keys.toEtcd('').toString()).toBe('/kedge-a');
    expect(keys.toEtcd('/').toString()).toBe('/kedge-a');
    expect(() => keys.toEtcd('/other/x')).toThrow(/outside the store/);
  });

  it('appends keys to the prefix when there is no root', () => {
    const keys = new EtcdKeys('/test');
    expect(keys.toEtcd('/a').toString()).toBe('/test/a');
    expect(keys.fromEtcd(Buffer.from('/test/a'))).toBe('/a');
  });
});

/** `etcdctl get /registry/pods/default/web-1` finds what the cloud stored, as with kube-apiserver. */
describe("the cloud's keys in a real etcd", () => {
  let etcd: EtcdCluster;
  let raw: Etcd3;
  beforeAll(async () => {
    etcd = await startTestEtcd(1);
    raw = new Etcd3({ hosts: etcd.endpoints });
  });
  afterAll(async () => {
    raw?.close();
    await etcd?.close();
  });

  it('keeps a Pod at <prefix>/pods/<namespace>/<name>, and lists and watches it under its Store key', async () => {
    const prefix = freshPrefix();
    const store = await openCloudEtcdStore({ endpoints: etcd.endpoints, prefix });
    try {
      const events = firstValueFrom(store.watch('/registry/pods/', store.revision).pipe(take(1), toArray()));
      const written = await store.create('/registry/pods/default/web-1', { kind: 'Pod' });
      expect(JSON.parse((await raw.get(`${prefix}/pods/default/web-1`).string())!)).toEqual({ kind: 'Pod' });
      expect(await raw.get(`${prefix}/registry/pods/default/web-1`).string()).toBeNull();
      expect((await store.list('/registry/pods/')).items.map((i) => i.key)).toEqual(['/registry/pods/default/web-1']);
      expect((await events).map((e) => [e.type, e.kv.key, e.kv.modRevision])).toEqual([['put', '/registry/pods/default/web-1', written.modRevision]]);
      await store.delete('/registry/pods/default/web-1');
      expect(await raw.get(`${prefix}/pods/default/web-1`).string()).toBeNull();
    } finally {
      await store.close();
    }
  });
});
