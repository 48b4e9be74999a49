import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudMessageHandler } from '../../edge/metamanager/cloud-message-handler.js';
import { cachedPodObjects } from '../../edge/volumes/pod-objects.js';
import { createMemoryCache, podsIn, refOf, type LocalCache } from '../../edge/metamanager/local-cache.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import { silentLogger } from '../../shared/log.js';
import { EnvelopeStamper, type DownMessage, type ObjectRef, type UpDraft } from '../../shared/protocol/envelope.js';
import { pod } from './fixtures.js';

const ref = (kind: string, name: string, uid: string, rv: string): ObjectRef => ({ kind, namespace: 'default', name, uid, resourceVersion: rv });
const configMap = (uid: string, rv: string, value: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'cfg', uid, resourceVersion: rv }, data: { 'app.conf': value } });
const secret = (uid: string, rv: string): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'default', name: 'pw', uid, resourceVersion: rv }, type: 'Opaque', data: { password: 'c2VjcmV0' } });

/** A pod, the ConfigMap and the Secret it references, as the cloud sends them. */
function fill(cache: LocalCache): void {
  cache.apply(ref('ConfigMap', 'cfg', 'c1', '3'), configMap('c1', '3', 'x=1'));
  cache.apply(ref('Secret', 'pw', 's1', '4'), secret('s1', '4'));
  cache.apply(ref('Pod', 'web', 'p1', '5'), pod('web', 'p1'));
}

describe('the edge cache holds ConfigMaps and Secrets beside pods [SYNC-18]', () => {
  it('podsIn returns the pods only; the accessors find the others by namespace and name', () => {
    const cache = createMemoryCache();
    fill(cache);
    expect(podsIn(cache).map((p) => p.metadata.name)).toEqual(['web']);
    expect(cachedPodObjects(cache).configMap('default', 'cfg')?.data).toEqual({ 'app.conf': 'x=1' });
    expect(cachedPodObjects(cache).secret('default', 'pw')?.data).toEqual({ password: 'c2VjcmV0' });
    expect([cachedPodObjects(cache).configMap('default', 'pw'), cachedPodObjects(cache).secret('default', 'cfg'), cachedPodObjects(cache).configMap('other', 'cfg')]).toEqual([undefined, undefined, undefined]);
    expect(cache.objects().map(refOf).map((r) => r.kind).sort()).toEqual(['ConfigMap', 'Pod', 'Secret']);
  });

  it('a newer version updates; one re-created under its name replaces the old uid, which is tombstoned', () => {
    const cache = createMemoryCache();
    fill(cache);
    expect(cache.apply(ref('ConfigMap', 'cfg', 'c1', '8'), configMap('c1', '8', 'x=2'))).toBe('updated');
    expect(cachedPodObjects(cache).configMap('default', 'cfg')?.data).toEqual({ 'app.conf': 'x=2' });
    expect(cache.apply(ref('ConfigMap', 'cfg', 'c2', '9'), configMap('c2', '9', 'x=3'))).toBe('replaced');
    expect(cachedPodObjects(cache).configMap('default', 'cfg')?.metadata.uid).toBe('c2');
    expect(cache.tombstoned('c1')).toBe(true);
    expect(cache.delete(ref('ConfigMap', 'cfg', 'c2', '9'))).toBe(true);
    expect(cachedPodObjects(cache).configMap('default', 'cfg')).toBeUndefined();
  });

  it('a referenced object no longer needed here is dropped without a tombstone: needed again, the same uid is held again; a pod is tombstoned', () => {
    const cache = createMemoryCache();
    fill(cache);
    expect(cache.delete(ref('ConfigMap', 'cfg', 'c1', '3'))).toBe(true);
    expect(cache.tombstoned('c1')).toBe(false);
    expect(cache.apply(ref('ConfigMap', 'cfg', 'c1', '3'), configMap('c1', '3', 'x=1'))).toBe('created');
    expect(cachedPodObjects(cache).configMap('default', 'cfg')?.data).toEqual({ 'app.conf': 'x=1' });
    expect(cache.delete(ref('Pod', 'web', 'p1', '5'))).toBe(true);
    expect(cache.tombstoned('p1')).toBe(true);
  });

  it('a status queued under a ConfigMap uid leaves the ConfigMap as it is', () => {
    const cache = createMemoryCache();
    fill(cache);
    cache.queueStatus(ref('ConfigMap', 'cfg', 'c1', '3'), { phase: 'Running' });
    expect(cachedPodObjects(cache).configMap('default', 'cfg')).toEqual(configMap('c1', '3', 'x=1'));
  });

  it('applies a ConfigMap the cloud sends, persists it, then acks', async () => {
    const cache = createMemoryCache();
    const sent: UpDraft[] = [];
    const handler = new CloudMessageHandler({ cache, logger: silentLogger, send: async (d) => (sent.push(d), 'id'), onAck: () => {}, onLogRequest: async () => {} });
    const message = new EnvelopeStamper('cloud', 'c').stamp({ type: 'apply', ref: ref('ConfigMap', 'cfg', 'c1', '3'), body: configMap('c1', '3', 'x=1') }) as DownMessage;
    await handler.handle(message);
    expect(cachedPodObjects(cache).configMap('default', 'cfg')?.data).toEqual({ 'app.conf': 'x=1' });
    expect(sent).toEqual([{ type: 'ack', parentId: message.id }]);
  });
});

describe('the durable cache and its Secrets', () => {
  let dir: string;
  let umask: number;
  beforeEach(async () => {
    umask = process.umask(0); // only modes set on purpose count
    dir = await mkdtemp(join(tmpdir(), 'kedge-cache-'));
  });
  afterEach(async () => {
    process.umask(umask);
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a cached Secret to a file of mode 0600 in a directory of mode 0700', async () => {
    const path = join(dir, 'edge', CACHE_FILE);
    const cache = await openLowdbCache(path);
    fill(cache);
    await cache.flush();
    expect(JSON.parse(await readFile(path, 'utf8')).objects.s1.object.data).toEqual({ password: 'c2VjcmV0' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'edge'))).mode & 0o777).toBe(0o700);
  });

  it('an edge restarted offline still has its ConfigMaps and Secrets (reopened from disk)', async () => {
    const path = join(dir, CACHE_FILE);
    const before = await openLowdbCache(path);
    fill(before);
    await before.flush();
    const after = await openLowdbCache(path);
    expect(cachedPodObjects(after).configMap('default', 'cfg')).toEqual(configMap('c1', '3', 'x=1'));
    expect(cachedPodObjects(after).secret('default', 'pw')).toEqual(secret('s1', '4'));
    expect(podsIn(after).map((p) => p.metadata.uid)).toEqual(['p1']);
  });
});
