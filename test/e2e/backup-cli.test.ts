import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { realClock, wallDelay } from '../../shared/clock.js';
import type { KubeObject } from '../../shared/types.js';
import { readyField, startRole, type RoleProcess } from '../../sim/role-process.js';
import { kedge } from '../support/kedge-cli.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'edge' } };
const ref = { resource: 'configmaps', namespace: 'default', name: 'settings' };

/** `kedge backup` against a running cloud with a durable store, then `kedge restore` once it is stopped. */
describe('kedge backup and kedge restore', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  async function startCloud(dir: string): Promise<{ cloud: RoleProcess; url: string }> {
    const cloud = startRole({ name: 'cloud', args: ['cloud', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--store', 'durable'], readyPattern: /^kedge cloud ready /, clock: realClock });
    cleanup.push(() => cloud.stop());
    return { cloud, url: readyField(await cloud.ready, 'api') };
  }

  it('saves the store while the cloud runs; restores it, uid and resourceVersion kept, only once the cloud is stopped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-backup-cli-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'cloud.backup');
    const first = await startCloud(dir);
    const admin = (await readCredentials(dir))!.admin;
    const api = createRemoteClient(first.url, admin);
    const saved = await api.create<KubeObject>(ref, configMap);

    const backup = await kedge('backup', file, '--data-dir', dir);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(new RegExp(`^backed up \\d+ objects at revision \\d+ to ${file}\\n$`));
    expect((await stat(file)).mode & 0o777).toBe(0o600); // it holds the Secrets too

    const viewer = (await kedge('token', 'create', '--role', 'viewer', '-o', 'token', '--data-dir', dir)).stdout.trim();
    let status = 0;
    for (let i = 0; i < 50 && status !== 403; i++, await wallDelay(100)) {
      status = (await fetch(`${first.url.replace(/^https:/, 'http:')}/kedge/v1/backup`, { headers: { authorization: `Bearer ${viewer}` } })).status;
    }
    expect(status).toBe(403); // a viewer may read objects, never the whole store

    await api.delete(ref);
    const refused = await kedge('restore', file, '--data-dir', dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`error: data dir ${dir} is in use by pid ${first.cloud.child.pid} (kedge cloud): a data dir has one owner; stop it first\n`);

    await first.cloud.stop();
    const restore = await kedge('restore', file, '--data-dir', dir);
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/^restored \d+ objects at revision \d+ into .*store; the store it replaced is kept in .*store\.before-restore-/);

    const second = await startCloud(dir);
    const back = await createRemoteClient(second.url, admin).get<KubeObject>(ref);
    expect(back.metadata).toMatchObject({ uid: saved.metadata.uid, resourceVersion: saved.metadata.resourceVersion });
    expect((back as unknown as { data: unknown }).data).toEqual({ mode: 'edge' });
  }, 60_000);

  it('refuses a file that is not a backup, naming it, and touches nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-restore-bad-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const run = await kedge('restore', join(dir, 'missing.backup'), '--data-dir', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`error: cannot read ${join(dir, 'missing.backup')}: no such file\n`);
    const none = await kedge('backup', join(dir, 'out'), '--data-dir', dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^error: no kedge cloud found with data dir /);
  });
});
