import { lstat, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiToken, newTokenEntry } from '../../cloud/apiserver/auth/token-file.js';
import { bootstrapTokenSecret, JOIN_NAMESPACE } from '../../cloud/join/secrets.js';
import { backupBytes, restoreBackup } from '../../cloud/store/backup.js';
import { DurableStore } from '../../cloud/store/durable-store.js';
import { joinCloud } from '../../edge/join.js';
import { FakeClock } from '../../shared/clock.js';
import { caFingerprint, formatJoinToken, newBootstrapToken } from '../../shared/join-token.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { writeDemoFile } from '../../sim/demo-file.js';
import { Cluster } from '../../sim/local-cluster.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { runScenarioSession } from '../../sim/scenario/session.js';
import { eventually } from '../support/eventually.js';

const ref = (name: string) => ({ resource: 'pods', namespace: 'default', name });
/** A process pod that logs a line and exits: its log and exit files stay on the edge. */
const hello: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hello' },
  spec: { nodeName: 'edge-1', runtimeClassName: 'process', restartPolicy: 'Never', containers: [{ name: 'main', image: 'node', command: [process.execPath, '-e', "console.log('hello')"] }] },
};

/** Every directory and file under `root`, with its mode (symbolic links are not followed). */
async function walk(root: string): Promise<{ path: string; dir: boolean; mode: number }[]> {
  const out: { path: string; dir: boolean; mode: number }[] = [];
  for (const entry of await readdir(root, { recursive: true })) {
    const s = await lstat(join(root, entry));
    out.push({ path: entry, dir: s.isDirectory(), mode: s.mode & 0o777 });
  }
  return out;
}

/**
 * A data dir has one owner: after a cloud (durable store, a snapshot, a restore, a token
 * created), an edge that joined, an edge that ran a process pod that logged, a demo file and a
 * scenario report, nothing under it is readable, writable or searchable by group or others.
 * Run with umask 0, so that only modes set on purpose count.
 */
describe('everything under a data dir is owner-only', () => {
  let cluster: Cluster<FakeClock>;
  let umask: number;

  beforeAll(async () => {
    umask = process.umask(0);
    cluster = await Cluster.start({ transport: 'mqtt', clock: new FakeClock(), nodes: 1, store: 'durable' });
  });
  afterAll(async () => {
    await cluster?.stop();
    process.umask(umask);
  });

  it('directories 0700, files 0600', { timeout: 90_000 }, async () => {
    const c = cluster;
    const cloudDir = join(c.dir, 'cloud');
    await c.api.create(ref('hello'), hello);
    await c.api.create(ref('simulated'), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'simulated' }, spec: { nodeName: 'edge-1', volumes: [{ name: 'scratch', emptyDir: {} }], containers: [{ name: 'main', image: 'app', volumeMounts: [{ name: 'scratch', mountPath: '/data' }] }] } });
    const phases = async () => (await c.api.list<Pod>({ resource: 'pods', namespace: 'default' })).items.map((p) => p.status?.phase).sort().join();
    await eventually(c.clock, async () => (await phases()) === 'Running,Succeeded', 'hello Succeeded and simulated Running', { wallTimeoutMs: 60_000 }); // a real process and a real broker: generous for a busy machine
    await addApiToken(cloudDir, newTokenEntry('viewer'));

    const { id, secret } = newBootstrapToken();
    await c.api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, bootstrapTokenSecret({ id, secret, node: 'edge-2' }));
    const token = formatJoinToken({ caHash: caFingerprint(c.cloud.caPem), id, secret });
    await joinCloud({ cloudUrl: c.cloud.apiUrl, token, node: 'edge-2', dataDir: join(c.dir, 'edges', 'edge-2'), logger: silentLogger });

    const store = await DurableStore.open(join(c.dir, 'snapshotted'), { snapshotMinBytes: 1, snapshotRatio: 0 });
    for (let i = 0; i < 5; i++) await store.create(`/k/${i}`, { i });
    await writeFile(join(c.dir, 'backup'), await backupBytes(store), { mode: 0o600 });
    await store.close();
    await restoreBackup(join(c.dir, 'backup'), join(c.dir, 'restored', 'store'), new Date(0));
    await writeDemoFile(c.dir, { pid: 1, controlUrl: 'http://127.0.0.1:1', apiUrl: 'http://127.0.0.1:2', brokerUrl: 'mqtt://127.0.0.1:3', nodes: [] });
    const scenario = parseScenario({ name: 't', description: 'd', nodes: 1, steps: [{ wait: '1s' }] }, 't.yaml');
    await runScenarioSession({ scenario, source: 't.yaml', timeScale: 1, outDir: join(c.dir, 'scenario'), clock: c.clock, logger: silentLogger, startCluster: () => Promise.reject(new Error('not here')) });

    const entries = await walk(c.dir);
    const notPrivate = entries.filter((e) => e.mode !== (e.dir ? 0o700 : 0o600)).map((e) => `${e.path} ${e.mode.toString(8)}`);
    expect(notPrivate).toEqual([]);
    // …and it looked at every kind of file there is.
    const names = entries.map((e) => e.path);
    for (const expected of [
      /^cloud\/store\/wal-\d+\.log$/, /^cloud\/tokens\.json$/, /^cloud\/tokens\.json\.prev$/, /^cloud\/kubeconfig$/, /^cloud\/ca\.key$/, /^cloud\/tls\.key$/,
      /^snapshotted\/snapshot\.log$/, /^restored\/store\/snapshot\.log$/,
      /^edges\/edge-1\/cache\.json$/, /^edges\/edge-1\/identity\.json$/, /^edges\/edge-1\/sim-runtime\.json$/, /^edges\/edge-1\/process-runtime\.json$/,
      /^edges\/edge-1\/containers\/\w+\.log$/, /^edges\/edge-1\/containers\/\w+\.exit$/, /^edges\/edge-2\/credential\.json$/,
      /^edges\/edge-1\/pods\/[\w-]+\/volumes\/kubernetes\.io~empty-dir\/scratch$/,
      /^demo\.json$/, /^scenario\/report\.json$/, /^scenario\/data$/,
    ]) expect(names.some((n) => expected.test(n)), String(expected)).toBe(true);
  });
});
