import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addApiToken, createApiServer, ensureSystemNamespaces, loadOrCreateLocalIdentity, newTokenEntry, type ApiClient } from '../../cloud/apiserver/index.js';
import { shareClusterIdentity } from '../../cloud/cluster-identity/share.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { realClock } from '../../shared/clock.js';
import type { Secret } from '../../shared/config-types.js';
import { memoryLogger } from '../../shared/log.js';

/** shareClusterIdentity: the store's identity wins; a data dir's own goes into an empty store; a cut start is started again from the store. */
describe('the cluster identity in the store', () => {
  let dir: string;
  let api: ApiClient;
  const now = realClock.now();
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-identity-'));
    api = createApiServer({ store: new MemoryStore(), clock: realClock, logger: memoryLogger('api'), tokens: [{ token: 't', user: 'admin', role: 'admin' }] }).loopback('t');
    await ensureSystemNamespaces(api);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const share = (name: string, logger = memoryLogger(name)) => shareClusterIdentity({ api, dataDir: join(dir, name), now, logger });
  const tokensOf = async (name: string) => JSON.parse(await readFile(join(dir, name, 'tokens.json'), 'utf8')) as { admin: string; tokens?: { user: string }[] };

  it("migrates an existing data dir: its identity goes into the store unchanged, once", async () => {
    const before = await loadOrCreateLocalIdentity(join(dir, 'old'), now, memoryLogger('old'));
    const log = memoryLogger('old');
    expect(await share('old', log)).toEqual(before);
    expect(log.lines.some((l) => l.includes("kept this data dir's CA and credentials in the store"))).toBe(true);
    const again = memoryLogger('old');
    expect(await share('old', again)).toEqual(before);
    expect(again.lines).toEqual([]);
  });

  it("a data dir with an identity of its own takes the cluster's, keeps its added tokens, and says so", async () => {
    const cluster = await share('first');
    await loadOrCreateLocalIdentity(join(dir, 'other'), now, memoryLogger('other'));
    await addApiToken(join(dir, 'other'), newTokenEntry('viewer', { name: 'alice' }));
    const log = memoryLogger('other');
    expect(await share('other', log)).toEqual(cluster);
    expect(log.lines.some((l) => l.includes("WARN") && l.includes("differed from the cluster's"))).toBe(true);
    const tokens = await tokensOf('other');
    expect(tokens.admin).toBe(cluster.credentials.admin);
    expect(tokens.tokens?.map((t) => t.user)).toEqual(['alice']);
  });

  it('two clouds starting at once on an empty store end up with one identity', async () => {
    const [a, b] = await Promise.all([share('a'), share('b')]);
    expect(a).toEqual(b);
    expect((await tokensOf('a')).admin).toBe((await tokensOf('b')).admin);
  });

  it('a start cut between writing the CA key and its certificate is repaired from the store', async () => {
    const cluster = await share('first');
    await share('second');
    await writeFile(join(dir, 'second', 'ca.crt'), 'half written');
    expect(await share('second')).toEqual(cluster);
    expect(await readFile(join(dir, 'second', 'ca.crt'), 'utf8')).toBe(cluster.ca.certPem);
  });

  it('refuses to replace a damaged identity in the store', async () => {
    await share('first');
    const secret = await api.get<Secret>({ resource: 'secrets', namespace: 'kube-system', name: 'kedge-cluster-identity' });
    const { 'ca.key': _key, ...rest } = secret.data ?? {};
    await api.replace({ resource: 'secrets', namespace: 'kube-system', name: 'kedge-cluster-identity' }, { ...secret, data: rest } as Secret);
    await expect(share('second')).rejects.toThrow(/kube-system\/kedge-cluster-identity is not a kedge.io\/cluster-identity Secret with ca.key: restore it from a backup/);
  });
});
