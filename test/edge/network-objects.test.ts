import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudMessageHandler } from '../../edge/metamanager/cloud-message-handler.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { cachedEndpoints, cachedServices, ownNode } from '../../edge/metamanager/network-objects.js';
import { silentLogger } from '../../shared/log.js';
import type { DownMessage, ObjectRef } from '../../shared/protocol/envelope.js';
import type { Endpoints, Service } from '../../shared/service-types.js';
import type { Node } from '../../shared/types.js';

const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'shop', name: 'web', uid: 's1', resourceVersion: '5' }, spec: { clusterIP: '10.96.0.9', ports: [{ port: 80 }] } };
const endpoints: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { namespace: 'shop', name: 'web', uid: 'e1', resourceVersion: '6' }, subsets: [{ addresses: [{ ip: '127.64.1.2' }], ports: [{ port: 8080 }] }] };
const own: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1', uid: 'n1', resourceVersion: '7' }, spec: { podCIDR: '127.64.1.0/24' } };
const other: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-2', uid: 'n2', resourceVersion: '8' }, spec: { podCIDR: '127.64.2.0/24' } };
const refOf = (kind: string, o: Service | Endpoints | Node): ObjectRef => ({ kind, name: o.metadata.name!, uid: o.metadata.uid!, resourceVersion: o.metadata.resourceVersion!, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) });
let seq = 0;
const apply = (kind: string, body: Service | Endpoints | Node): DownMessage => ({ v: 1, id: `c.${++seq}`, seq, sender: 'cloud', epoch: 'c', type: 'apply', ref: refOf(kind, body), body }) as DownMessage;
const del = (kind: string, body: Service | Endpoints | Node): DownMessage => ({ v: 1, id: `c.${++seq}`, seq, sender: 'cloud', epoch: 'c', type: 'delete', ref: refOf(kind, body) }) as DownMessage;

describe('the edge caches Services, Endpoints and its own Node, durably [SYNC-19]', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('applies, persists and acks them; the helpers read them back after a restart; a tombstone is no "gone for good"', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-net-cache-'));
    const path = join(dir, CACHE_FILE);
    const cache = await openLowdbCache(path);
    const acks: string[] = [];
    const handler = new CloudMessageHandler({ cache, logger: silentLogger, send: async (d) => (acks.push(d.type === 'ack' ? d.parentId : ''), 'x'), onAck: () => {}, onLogRequest: async () => {} });
    for (const m of [apply('Service', service), apply('Endpoints', endpoints), apply('Node', own)]) await handler.handle(m);
    expect(acks).toHaveLength(3);

    const reopened = await openLowdbCache(path);
    expect([cachedServices(reopened), cachedEndpoints(reopened), ownNode(reopened, 'edge-1')]).toEqual([[service], [endpoints], own]);
    expect(ownNode(reopened, 'edge-2')).toBeUndefined();

    // No pod of the namespace here any more: dropped, but wanted again later under the same uid.
    await handler.handle(del('Service', service));
    expect([cachedServices(cache), cache.tombstoned('s1')]).toEqual([[], false]);
    await handler.handle(apply('Service', service));
    expect(cachedServices(await openLowdbCache(path))).toEqual([service]);
  });

  it('ownNode reads the named node’s Node only', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-net-cache-'));
    const cache = await openLowdbCache(join(dir, CACHE_FILE));
    cache.apply(refOf('Node', other), other);
    expect(ownNode(cache, 'edge-1')).toBeUndefined();
    expect(ownNode(cache, 'edge-2')?.spec?.podCIDR).toBe('127.64.2.0/24');
  });
});
