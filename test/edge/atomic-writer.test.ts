import { mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { containerMounts } from '../../edge/volumes/container-mounts.js';
import { DiskVolumeHost } from '../../edge/volumes/disk-volume-host.js';
import { FakeClock } from '../../shared/clock.js';
import { testNetwork } from '../support/test-network.js';

const file = (path: string, text: string, mode = 0o644) => ({ path, content: Buffer.from(text), mode });
const target = { podUid: 'u1', plugin: 'kubernetes.io~configmap', name: 'cfg' };

/** The disk host writes as kubelet's AtomicWriter: links into `..data`, swapped whole, and survives a crash mid-write. */
describe('DiskVolumeHost payloads', () => {
  let dataDir: string;
  let clock: FakeClock;
  const host = () => new DiskVolumeHost({ dataDir, hostRoot: join(dataDir, 'host'), clock });
  const dir = () => join(dataDir, 'pods', 'u1', 'volumes', 'kubernetes.io~configmap', 'cfg');

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kedge-atomic-'));
    clock = new FakeClock(Date.UTC(2026, 11, 2, 3, 4, 5));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('lays a payload out as kubelet: <key> -> ..data/<key>, ..data -> ..<UTC timestamp>.<random>', async () => {
    await host().setUp(target, { type: 'files', files: [file('mode', 'fast'), file('conf/app.ini', 'a=1')] });
    expect((await readdir(dir())).sort()).toEqual([expect.stringMatching(/^\.\.2026_12_02_03_04_05\.\w+$/), '..data', 'conf', 'mode']);
    expect(await readlink(join(dir(), 'mode'))).toBe('..data/mode');
    expect(await readlink(join(dir(), 'conf'))).toBe('..data/conf');
    expect(await readlink(join(dir(), '..data'))).toMatch(/^\.\.2026_12_02_03_04_05\./);
    expect(await readFile(join(dir(), 'conf/app.ini'), 'utf8')).toBe('a=1');
  });

  it('swaps the whole payload on a change, drops keys no longer there and the old directory', async () => {
    const h = host();
    await h.setUp(target, { type: 'files', files: [file('a', '1'), file('b', '2')] });
    const before = await readlink(join(dir(), '..data'));
    await clock.advance(61_000);
    await h.setUp(target, { type: 'files', files: [file('a', '3')] });
    const after = await readlink(join(dir(), '..data'));
    expect(after).not.toBe(before);
    expect((await readdir(dir())).sort()).toEqual([after, '..data', 'a'].sort());
  });

  it('a restarted edge keeps a payload already on disk, and clears what a killed write left', async () => {
    await host().setUp(target, { type: 'files', files: [file('a', '1')] });
    const written = await readlink(join(dir(), '..data'));
    // As if killed mid-write: a half-filled payload directory and a ..data_tmp link.
    await mkdir(join(dir(), '..2026_12_02_03_09_09.half'));
    await writeFile(join(dir(), '..2026_12_02_03_09_09.half', 'a'), 'partial');
    await symlink('..2026_12_02_03_09_09.half', join(dir(), '..data_tmp'));
    await host().setUp(target, { type: 'files', files: [file('a', '1')] });
    expect(await readlink(join(dir(), '..data'))).toBe(written);
    expect((await readdir(dir())).sort()).toEqual([written, '..data', 'a'].sort());
  });

  it('a subPath mount of a process container keeps the file it started with; the volume mount follows', async () => {
    const h = host();
    const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir, clock });
    try {
      const path = await h.setUp(target, { type: 'files', files: [file('mode', 'fast')] });
      const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'web', namespace: 'default', runtimeHandler: 'process' });
      const mounts = containerMounts({ name: 'app', volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }, { name: 'cfg', mountPath: '/etc/mode', subPath: 'mode' }] }, new Map([['cfg', path]]));
      const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, mounts });
      const root = join(dataDir, 'pods', 'u1', 'containers', 'app', id, 'root');
      await h.setUp(target, { type: 'files', files: [file('mode', 'slow')] });
      expect(await readFile(join(root, 'etc/cfg/mode'), 'utf8')).toBe('slow');
      expect(await readFile(join(root, 'etc/mode'), 'utf8')).toBe('fast');
      await runtime.removeContainer(id);
      expect(await readdir(join(dataDir, 'pods', 'u1', 'containers', 'app'))).toEqual([]);
    } finally {
      runtime.close();
    }
  });

  it('a node reboot removes the roots of the containers it forgets', async () => {
    const path = await host().setUp(target, { type: 'files', files: [file('mode', 'fast')] });
    const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir, clock });
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'web', namespace: 'default', runtimeHandler: 'process' });
    const mounts = containerMounts({ name: 'app', volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] }, new Map([['cfg', path]]));
    await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, mounts });
    runtime.close();
    expect(await readdir(join(dataDir, 'pods', 'u1', 'containers', 'app'))).toHaveLength(1);
    (await ProcessRuntime.open({ network: testNetwork(), dataDir, clock, reboot: true })).close();
    expect(await readdir(join(dataDir, 'pods', 'u1', 'containers', 'app'))).toEqual([]);
    expect(await readdir(path)).toContain('mode'); // the volume stays, for the pod's next start
  });
});
