import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeMosquittoConfig } from '../../bin/commands/broker-config.js';
import { ADMIN_USER, loadOrCreateCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import { verifyPassword } from '../../cloud/hub/password-hash.js';
import { FakeClock } from '../../shared/clock.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';

/**
 * Each of the cloud's credentials does one job: the in-process components' API token (`cloud`)
 * is not the hub's broker password (`hub`), so whoever learns one cannot use it for the other.
 */
describe("the cloud's own credentials", () => {
  const dirs: string[] = [];
  const tempDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-creds-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('a new data dir gets a hub broker password of its own', async () => {
    const dir = await tempDir();
    const creds = await loadOrCreateCredentials(dir);
    expect(creds.hub).toMatch(/^[\w-]{43}$/);
    expect(new Set([creds.admin, creds.cloud, creds.hub, creds.edge]).size).toBe(4);
    expect(await loadOrCreateCredentials(dir)).toEqual(creds);
  });

  it('an older tokens.json gains one at start, written 0600 with everything else kept', async () => {
    const dir = await tempDir();
    const path = join(dir, 'tokens.json');
    const old = { admin: 'a'.repeat(43), cloud: 'c'.repeat(43), edge: 'e'.repeat(43), tokens: [{ token: 't'.repeat(43), user: 'alice', role: 'viewer' }] };
    await writeFile(path, JSON.stringify(old), { mode: 0o644 });
    const creds = await loadOrCreateCredentials(dir);
    expect(creds).toEqual({ admin: old.admin, cloud: old.cloud, edge: old.edge, hub: expect.stringMatching(/^[\w-]{43}$/) });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ ...old, hub: creds.hub });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await loadOrCreateCredentials(dir)).hub).toBe(creds.hub);
  });

  it("Mosquitto's password file admits kedge-cloud with the hub's password, not the API token", async () => {
    const dir = await tempDir();
    const creds = await loadOrCreateCredentials(dir);
    const warnings: string[] = [];
    const result = await writeMosquittoConfig({ dataDir: dir, out: join(dir, 'mosquitto'), port: 1883, host: '127.0.0.1', nodes: [] }, (w) => warnings.push(w));
    const line = (await readFile(result.files.passwd, 'utf8')).split('\n').find((l) => l.startsWith(`${CLOUD_USERNAME}:`))!;
    const hash = line.slice(CLOUD_USERNAME.length + 1);
    expect([verifyPassword(creds.hub, hash), verifyPassword(creds.cloud, hash), verifyPassword(creds.admin, hash)]).toEqual([true, false, false]);
  });
});

describe('a running cloud keeps them apart', () => {
  let cluster: Cluster<FakeClock>;
  beforeAll(async () => {
    cluster = await Cluster.start({ transport: 'mqtt', clock: new FakeClock(), nodes: 0 });
  });
  afterAll(async () => {
    await cluster.stop();
  });

  const brokerRefuses = async (username: string, password: string): Promise<void> => {
    const attempt = connectAsync(cluster.cloud.brokerUrl, { clientId: `probe-${Math.random().toString(16).slice(2, 8)}`, username, password, protocolVersion: 4, reconnectPeriod: 0 });
    await expect(attempt).rejects.toThrow(/not authorized|bad user ?name or password/i);
  };
  /** An unknown token waits for the next look at tokens.json (on the cloud's clock), so the clock moves until the answer comes. */
  const apiStatus = async (token: string): Promise<number> => {
    let status: number | undefined;
    void fetch(`${cluster.cloud.apiUrl.replace(/^https:/, 'http:')}/api/v1/namespaces`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => {
      await res.arrayBuffer();
      status = res.status;
    }, () => (status = -1));
    return eventually(cluster.clock, () => status, 'the API to answer', { wallTimeoutMs: 30_000 }); // a real HTTP round trip: generous for a busy machine
  };

  it("the hub is connected with its own password; the broker refuses the cloud's and the admin's API tokens", async () => {
    const { credentials } = cluster.cloud;
    expect(cluster.cloud.hub.brokerLink().up).toBe(true);
    await brokerRefuses(CLOUD_USERNAME, credentials.cloud);
    await brokerRefuses(CLOUD_USERNAME, credentials.admin);
    await brokerRefuses('edge-1', credentials.cloud);
    await brokerRefuses(ADMIN_USER, credentials.admin);
  });

  it("the API refuses the hub's broker password and the shared edge token", { timeout: 120_000 }, async () => {
    const { credentials } = cluster.cloud;
    expect([await apiStatus(credentials.hub), await apiStatus(credentials.edge), await apiStatus(credentials.admin)]).toEqual([401, 401, 200]);
  });
});
