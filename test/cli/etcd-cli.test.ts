import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { freshPrefix, startTestEtcd } from '../support/etcd.js';
import { kedge } from '../support/kedge-cli.js';

describe('kedge cloud --store etcd, kedge backup and restore with etcd (the compiled CLI)', () => {
  let etcd: EtcdCluster;
  let cloud: CloudProcess | undefined;
  let dir: string;
  beforeAll(async () => {
    etcd = await startTestEtcd();
    dir = await mkdtemp(join(tmpdir(), 'kedge-etcd-cli-'));
  });
  afterEach(async () => {
    await cloud?.stop();
    cloud = undefined;
  });
  afterAll(async () => {
    await etcd?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    [['--store', 'etcd'], '--store etcd needs --etcd-endpoints URL[,URL…]'],
    [['--etcd-endpoints', 'http://127.0.0.1:2379'], '--etcd-endpoints needs --store etcd'],
    [['--store', 'etcd', '--etcd-endpoints', '127.0.0.1:2379'], '"127.0.0.1:2379" is not an etcd client URL'],
    [['--store', 'etcd', '--etcd-endpoints', 'http://127.0.0.1:2379', '--etcd-certfile', 'c.pem'], '--etcd-certfile and --etcd-keyfile go together'],
    [['--store', 'etcd', '--etcd-endpoints', 'http://127.0.0.1:2379', '--etcd-compaction-interval', 'banana'], 'expected a duration such as 5m or 0 (never), got "banana"'],
  ])('refuses %j', async (args, message) => {
    const run = await kedge('cloud', '--data-dir', join(dir, 'refused'), ...args);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(message);
  });

  it('serves from etcd; a backup of it restores into an empty prefix of etcd', async () => {
    const prefix = freshPrefix();
    cloud = await startCloudProcess('etcd-cli', ['--store', 'etcd', '--etcd-endpoints', etcd.endpoints.join(','), '--etcd-prefix', prefix]);
    const file = join(dir, 'cloud.backup');
    const saved = await kedge('backup', file, '--data-dir', cloud.dir);
    expect(saved.stderr).toBe('');
    const count = Number(/backed up (\d+) objects/.exec(saved.stdout)?.[1]);
    expect(count).toBeGreaterThan(0);
    const exited = cloud.cloud.exited;
    await cloud.stop();
    cloud = undefined;
    expect(await exited).toBe(0); // closing the store let go of etcd's watch stream: no SIGKILL needed

    const target = freshPrefix();
    const restored = await kedge('restore', file, '--etcd-endpoints', etcd.endpoints[0]!, '--etcd-prefix', target);
    expect(restored.stdout).toContain(`restored ${count} objects`);
    expect(restored.stdout).toContain("resourceVersions are etcd's new revisions");
    const again = await kedge('restore', file, '--etcd-endpoints', etcd.endpoints[0]!, '--etcd-prefix', target);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('the store is not empty');

    const direct = await kedge('backup', join(dir, 'direct.backup'), '--etcd-endpoints', etcd.endpoints[0]!, '--etcd-prefix', target);
    expect(direct.stdout).toContain(`backed up ${count} objects at etcd revision`);
  });
});
