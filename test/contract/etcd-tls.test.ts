import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEtcdStore } from '../../cloud/store/etcd/open-etcd-store.js';
import { realClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import { startEtcdCluster, type EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { makeEtcdCerts, type EtcdCerts } from '../support/etcd-certs.js';
import { freshPrefix } from '../support/etcd.js';

describe('EtcdStore over TLS with a client certificate (--etcd-cafile, --etcd-certfile, --etcd-keyfile)', () => {
  let dir: string;
  let certs: EtcdCerts;
  let etcd: EtcdCluster | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-etcd-tls-'));
    certs = await makeEtcdCerts(dir);
    etcd = await startEtcdCluster({ clock: realClock, tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile, trustedCaFile: certs.caFile } });
  });
  afterAll(async () => {
    await etcd?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes and reads with the client certificate', async () => {
    expect(etcd!.endpoints[0]).toMatch(/^https:/);
    const store = await openEtcdStore({ endpoints: etcd!.endpoints, prefix: freshPrefix(), caFile: certs.caFile, certFile: certs.clientCertFile, keyFile: certs.clientKeyFile });
    try {
      const kv = await store.create('/k', { v: 1 });
      expect(await store.get('/k')).toEqual(kv);
    } finally {
      await store.close();
    }
  });

  it('is refused without one, with 503', async () => {
    const err = await openEtcdStore({ endpoints: etcd!.endpoints, prefix: freshPrefix(), caFile: certs.caFile }).catch((e: unknown) => e);
    expect(isKedgeError(err, 'Unavailable')).toBe(true);
  });
});
