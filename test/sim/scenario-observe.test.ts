import { describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import type { ScenarioCluster } from '../../sim/scenario/cluster.js';
import { check } from '../../sim/scenario/observe.js';

const ADMIN = 'observe-admin';
const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'welcome' }, spec: { containers: [{ name: 'c', image: 'i' }] } };

describe('expect: rejected against a real apiserver', () => {
  it('tries the create as a dry run: an object the cloud accepts fails the expectation and is not stored', async () => {
    const store = new MemoryStore();
    const api = createApiServer({ store, clock: new FakeClock(), logger: silentLogger, tokens: [{ token: ADMIN, user: 'admin', role: 'admin' }] });
    const client = api.loopback(ADMIN);
    await ensureSystemNamespaces(client);
    const cluster = { api: client, nodes: [] } as unknown as ScenarioCluster;
    try {
      expect(await check(cluster, { kind: 'rejected', object: pod })).toEqual({ ok: false, seen: 'accepted (a dry run: nothing was stored)' });
      expect((await client.list<Pod>({ resource: 'pods', namespace: 'default' })).items).toEqual([]);
      const invalid = { ...pod, spec: { containers: [] } };
      expect(await check(cluster, { kind: 'rejected', object: invalid, status: 422 })).toMatchObject({ ok: true, seen: expect.stringMatching(/^HTTP 422: /) });
    } finally {
      await store.close();
    }
  });
});
