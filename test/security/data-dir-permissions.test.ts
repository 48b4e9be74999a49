import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addApiToken, newTokenEntry } from '../../cloud/apiserver/auth/token-file.js';
import { bootstrapTokenSecret, JOIN_NAMESPACE } from '../../cloud/join/secrets.js';
import { backupBytes, restoreBackup } from '../../cloud/store/backup.js';
import { DurableStore } from '../../cloud/store/durable-store.js';
import { joinCloud } from '../../edge/join.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { encodeEntry, END_OF_ARCHIVE } from '../../edge/runtime/sim-shell/ustar.js';
import { edgeVolumeHosts } from '../../edge/volumes/volume-hosts.js';
import { defaultHostRoot, volumeDir } from '../../edge/volumes/volume-paths.js';
import { FakeClock } from '../../shared/clock.js';
import { caFingerprint, formatJoinToken, newBootstrapToken } from '../../shared/join-token.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { writeDemoFile } from '../../sim/demo-file.js';
import { Cluster } from '../../sim/local-cluster.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { runScenarioSession } from '../../sim/scenario/session.js';
import { eventually } from '../support/eventually.js';
import { testNetwork } from '../support/test-network.js';
import { finished, WITH_STDIN } from '../runtime/stream-support.js';

const ref = (name: string) => ({ resource: 'pods', namespace: 'default', name });
/** A process pod that logs a line and exits: its log and exit files stay on the edge. */
const hello: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hello' },
  spec: { nodeName: 'edge-1', runtimeClassName: 'process', restartPolicy: 'Never', containers: [{ name: 'main', image: 'node', command: [process.execPath, '-e', "console.log('hello')"] }] },
};

/** The paths under `root` that are not owner-only (directories 0700, files 0600), with their modes. */
async function notPrivate(root: string): Promise<string[]> {
  return (await walk(root)).filter((e) => e.mode !== (e.dir ? 0o700 : 0o600)).map((e) => `${e.path} ${e.mode.toString(8)}`);
}

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

    expect(await notPrivate(c.dir)).toEqual([]);
    const entries = await walk(c.dir);
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

/**
 * What pods write on an edge stays owner-only too: a sim container's files, written by
 * `kubectl exec` or `kubectl cp` (in its scratch directory and in a volume), and what a
 * hostPath volume makes under the default host root, `<data dir>/host`. Under a host root
 * outside the data dir (the real host's `/`), hostPath makes them as kubelet does (0755, 0644).
 */
describe('what pods write under an edge data dir is owner-only', () => {
  let dir: string;
  let umask: number;
  beforeEach(async () => {
    umask = process.umask(0);
    dir = await mkdtemp(join(tmpdir(), 'kedge-pod-files-'));
  });
  afterEach(async () => {
    process.umask(umask);
    await rm(dir, { recursive: true, force: true });
  });

  it("a sim container's files, through exec and tar (kubectl cp)", async () => {
    const edge = join(dir, 'edge');
    const runtime = await SimRuntime.open({ network: testNetwork(), dataDir: edge, clock: new FakeClock(), defaultStartMs: 0 });
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'web', namespace: 'default' });
    const emptyDir = volumeDir(edge, { podUid: 'u1', plugin: 'kubernetes.io~empty-dir', name: 'data' });
    await mkdir(emptyDir, { recursive: true, mode: 0o700 }); // as the disk volume host makes it
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, mounts: [{ name: 'data', containerPath: '/data', hostPath: emptyDir, readOnly: false }] });
    await runtime.startContainer(id);
    const archive = Buffer.concat([
      encodeEntry({ name: 'site', type: 'directory', mode: 0o755, mtime: 0 }),
      encodeEntry({ name: 'site/index.html', type: 'file', mode: 0o644, mtime: 0, data: Buffer.from('<h1>hi</h1>') }),
      END_OF_ARCHIVE,
    ]);
    const run = async (command: string[], input = Buffer.alloc(0)) => {
      const session = await runtime.execStream(id, command, WITH_STDIN);
      session.stdin!.end(input);
      return finished(session);
    };
    for (const target of ['/tmp', '/data']) expect(await run(['tar', 'xf', '-', '-C', target], archive)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await run(['mkdir', '-p', '/srv/a/b'])).toMatchObject({ exitCode: 0 });
    const names = (await walk(edge)).map((e) => e.path);
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^sim-fs\/\w+\/tmp\/site\/index\.html$/), expect.stringMatching(/^sim-fs\/\w+\/srv\/a\/b$/), expect.stringMatching(/\/data\/site\/index\.html$/)]));
    expect(await notPrivate(edge)).toEqual([]);
  });

  it('hostPath volumes made under the default host root; as kubelet makes them elsewhere', async () => {
    const setUp = async (dataDir: string, hostRoot: string): Promise<void> => {
      const disk = edgeVolumeHosts({ dataDir, hostRoot, clock: new FakeClock() }).hostFor(hello); // a process pod's: real directories
      await disk.setUp({ podUid: 'u1', plugin: 'kubernetes.io~host-path', name: 'logs' }, { type: 'hostPath', path: '/var/log/app', hostPathType: 'DirectoryOrCreate' });
      await disk.setUp({ podUid: 'u1', plugin: 'kubernetes.io~host-path', name: 'lock' }, { type: 'hostPath', path: '/run/app/lock', hostPathType: 'FileOrCreate' });
    };
    const edge = join(dir, 'edge');
    await setUp(edge, defaultHostRoot(edge));
    expect((await walk(edge)).map((e) => e.path)).toEqual(expect.arrayContaining(['host/var/log/app', 'host/run/app/lock']));
    expect(await notPrivate(edge)).toEqual([]);

    const realHost = join(dir, 'real-host');
    await setUp(join(dir, 'other-edge'), realHost);
    expect((await notPrivate(realHost)).sort()).toEqual(['run 755', 'run/app 755', 'run/app/lock 644', 'var 755', 'var/log 755', 'var/log/app 755']);
  });
});
