import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { FakeClock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import type { KubeObject } from '../../shared/types.js';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { freshPrefix, startTestEtcd } from '../support/etcd.js';
import { CLOUD_PASSWORD, MemorySync } from '../support/memory-sync.js';

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
const configMaps = { resource: 'configmaps', namespace: 'default' };

describe('a cloud on etcd (--store etcd)', () => {
  let dir: string | undefined;
  let cloud: Cloud | undefined;
  let sync: MemorySync | undefined;
  let etcd: EtcdCluster | undefined;
  afterEach(async () => {
    await cloud?.stop();
    await sync?.close();
    await etcd?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    cloud = sync = etcd = dir = undefined;
  });

  it('keeps objects in etcd; stopping the store disconnects (503 meanwhile), starting reconnects', async () => {
    etcd = await startTestEtcd();
    const clock = new FakeClock();
    sync = new MemorySync({ clock });
    dir = await mkdtemp(join(tmpdir(), 'kedge-cloud-etcd-'));
    const transport = (identity: { clientId: string; username: string }) => sync!.transport({ ...identity, password: CLOUD_PASSWORD });
    const prefix = freshPrefix();
    cloud = await startCloud({ dataDir: dir, apiPort: 0, mqttPort: 0, brokerUrl: 'mqtt://broker.example:1883', transport, store: 'etcd', etcd: { endpoints: etcd.endpoints, prefix }, clock });
    const created = await cloud.api.create(configMaps, configMap('a'));
    expect(Number(created.metadata!.resourceVersion)).toBe(cloud.store.revision);

    await cloud.components.stop('store');
    const down = await cloud.api.get({ ...configMaps, name: 'a' }).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(KedgeError);
    expect((down as KedgeError).httpStatus).toBe(503);

    // Disconnected: with etcd gone too, starting the store fails with etcd's reason, and it stays stopped.
    await etcd.stop(0);
    const refused = await cloud.components.start('store').catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/etcd: /);
    expect(cloud.components.list().find((c) => c.name === 'store')).toMatchObject({ running: false });

    await etcd.start(0);
    await cloud.components.start('store');
    expect((await cloud.api.get<KubeObject>({ ...configMaps, name: 'a' })).metadata!.uid).toBe(created.metadata!.uid);
    await cloud.api.create(configMaps, configMap('b'));
  });
});
