import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, toArray, take } from 'rxjs';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { isKedgeError } from '../../shared/errors.js';
import type { Pod } from '../../shared/types.js';
import {
  apiTokens, LOOPBACK_HOSTS, loadOrCreateCredentials, loadOrCreateServingCert, readEdgeBootstrapToken, writeKubeconfig,
} from '../../cloud/apiserver/auth/credentials.js';
import { certCovers } from '../../cloud/apiserver/auth/tls-cert.js';
import { ADMIN_TOKEN, VIEWER_TOKEN, apiFixture, pod } from '../support/api-fixture.js';

describe('loopback client', () => {
  it('runs CRUD through the same pipeline and turns Status failures into KedgeErrors', async () => {
    const f = await apiFixture();
    const client = f.api.loopback(ADMIN_TOKEN);
    const created = await client.create<Pod>({ resource: 'pods', namespace: 'default' }, pod("a"));
    expect(created.metadata.uid).toBeDefined();
    expect((await client.get<Pod>({ resource: 'pods', namespace: 'default', name: 'a' })).spec.restartPolicy).toBe('Always');
    await client.create({ resource: 'pods', namespace: 'default', name: 'a', subresource: 'binding' }, { metadata: { name: 'a' }, target: { name: 'n1' } } as never);
    const list = await client.list<Pod>({ resource: 'pods' }, { fieldSelector: 'spec.nodeName=n1' });
    expect(list.items.map((p) => p.metadata.name)).toEqual(['a']);
    const patched = await client.patch<Pod>({ resource: 'pods', namespace: 'default', name: 'a', subresource: 'status' }, { status: { phase: 'Running' } });
    expect(patched.status?.phase).toBe('Running');
    const stale = { ...created, metadata: { ...created.metadata } };
    await expect(client.replace({ resource: 'pods', namespace: 'default', name: 'a' }, stale)).rejects.toSatisfy((e) => isKedgeError(e, 'Conflict'));
    // Bound to a node: deleted gracefully (marked, 30 s), then at once with grace 0.
    await client.delete({ resource: 'pods', namespace: 'default', name: 'a' });
    expect((await client.get<Pod>({ resource: 'pods', namespace: 'default', name: 'a' })).metadata).toMatchObject({ deletionGracePeriodSeconds: 30, deletionTimestamp: expect.any(String) });
    await client.delete({ resource: 'pods', namespace: 'default', name: 'a' }, { gracePeriodSeconds: 0 });
    await expect(client.get({ resource: 'pods', namespace: 'default', name: 'a' })).rejects.toSatisfy((e) => isKedgeError(e, 'NotFound'));
    const viewer = f.api.loopback(VIEWER_TOKEN);
    await expect(viewer.create({ resource: 'pods', namespace: 'default' }, pod('b'))).rejects.toSatisfy((e) => isKedgeError(e, 'Forbidden'));
  });

  it('watches as an Observable, and errors with Expired past the history window', async () => {
    const f = await apiFixture();
    const client = f.api.loopback(ADMIN_TOKEN);
    await client.create({ resource: 'pods', namespace: 'default' }, pod('a'));
    const first = firstValueFrom(client.watch<Pod>({ resource: 'pods', namespace: 'default' }).pipe(take(2), toArray()));
    await f.clock.advance(0);
    await client.create({ resource: 'pods', namespace: 'default' }, pod('b'));
    expect((await first).map((e) => `${e.type}:${e.object.metadata.name}`)).toEqual(['ADDED:a', 'ADDED:b']);
    await f.store.compact(f.store.revision);
    const expired = firstValueFrom(client.watch({ resource: 'pods' }, { resourceVersion: '1' }));
    await expect(expired).rejects.toSatisfy((e) => isKedgeError(e, 'Expired'));
  });
});

describe('credentials', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('generates tokens once, keeps them 0600, and writes a kubeconfig', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-creds-'));
    dirs.push(dir);
    const creds = await loadOrCreateCredentials(dir);
    expect(creds.admin).toMatch(/^[\w-]{40,}$/);
    expect(new Set([creds.admin, creds.cloud, creds.edge]).size).toBe(3);
    expect((await stat(join(dir, 'tokens.json'))).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateCredentials(dir)).toEqual(creds);
    expect(await readEdgeBootstrapToken(dir)).toBe(creds.edge);
    expect(apiTokens(creds).map((t) => [t.user, t.role])).toEqual([['kedge-admin', 'admin'], ['system:kedge-cloud', 'admin']]);
    const path = await writeKubeconfig(dir, 'http://127.0.0.1:6443', creds.admin);
    const kc = parse(await readFile(path, 'utf8')) as { clusters: { cluster: { server: string } }[]; users: { user: { token: string } }[]; 'current-context': string };
    expect(kc.clusters[0]!.cluster.server).toBe('http://127.0.0.1:6443');
    expect(kc.users[0]!.user.token).toBe(creds.admin);
    expect(kc['current-context']).toBe('kedge');
  });

  it('generates a serving certificate once and regenerates it when a host is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-tls-'));
    dirs.push(dir);
    const now = Date.UTC(2026, 0, 1);
    const cert = await loadOrCreateServingCert(dir, LOOPBACK_HOSTS, now);
    expect(certCovers(cert, ['127.0.0.1', 'localhost', '::1'], now)).toBe(true);
    expect(certCovers(cert, ['10.1.2.3'], now)).toBe(false);
    expect((await stat(join(dir, 'tls.key'))).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateServingCert(dir, LOOPBACK_HOSTS, now)).toEqual(cert);
    const wider = await loadOrCreateServingCert(dir, [...LOOPBACK_HOSTS, '10.1.2.3', 'cloud.example'], now);
    expect(wider.certPem).not.toBe(cert.certPem);
    expect(certCovers(wider, ['10.1.2.3', 'cloud.example'], now)).toBe(true);
    expect(certCovers(wider, LOOPBACK_HOSTS, now + 20 * 365 * 86_400_000)).toBe(false);
    // The CA stays: a join token that pins it stays good when the serving certificate changes.
    expect(wider.caPem).toBe(cert.caPem);
    expect(certCovers(wider, LOOPBACK_HOSTS, now, wider.caPem)).toBe(true);
    expect((await stat(join(dir, 'ca.key'))).mode & 0o777).toBe(0o600);
  });

  it('issues the serving certificate again when another CA signed it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-tls-'));
    dirs.push(dir);
    const now = Date.UTC(2026, 0, 1);
    const first = await loadOrCreateServingCert(dir, LOOPBACK_HOSTS, now);
    await rm(join(dir, 'ca.crt')); // both: a CA half there is damaged, and the cloud refuses to start
    await rm(join(dir, 'ca.key'));
    const second = await loadOrCreateServingCert(dir, LOOPBACK_HOSTS, now);
    expect(second.caPem).not.toBe(first.caPem);
    expect(certCovers(second, LOOPBACK_HOSTS, now, second.caPem)).toBe(true);
    expect(certCovers(first, LOOPBACK_HOSTS, now, second.caPem)).toBe(false);
  });
});
