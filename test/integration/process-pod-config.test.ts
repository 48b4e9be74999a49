import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Edged } from '../../edge/edged/edged.js';
import { createMemoryCache, type LocalCache } from '../../edge/metamanager/local-cache.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { edgeVolumeHosts } from '../../edge/volumes/volume-hosts.js';
import { FakeClock } from '../../shared/clock.js';
import type { ConfigMap } from '../../shared/config-types.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { KubeObject, Pod } from '../../shared/types.js';
import { eventually } from '../support/eventually.js';
import { holdIn } from '../edge/fixtures.js';

const timing = { ...defaultTiming, syncIntervalMs: 1000 };

/** Prints, whenever either changes, MODE from its env, the mounted file via $KEDGE_ROOT, and the same file by a relative path. */
const reader = `
const fs = require('node:fs');
const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch { return 'missing'; } };
let last = '';
setInterval(() => {
  const line = 'env=' + process.env.MODE + ' file=' + read(process.env.KEDGE_ROOT + '/etc/cfg/mode') + ' relative=' + read('etc/cfg/mode');
  if (line !== last) console.log(last = line);
}, 20);`;

const web: Pod & { kind: string } = {
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '1' },
  spec: {
    nodeName: 'edge-1', runtimeClassName: 'process',
    volumes: [{ name: 'cfg', configMap: { name: 'settings' } }],
    containers: [{
      name: 'app', image: 'node', command: [process.execPath, '-e', reader],
      env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }],
      volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
    }],
  },
};
const settings = (mode: string, rv: string): ConfigMap & { kind: string } => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default', uid: 'cm-1', resourceVersion: rv }, data: { mode } });

/** A real process reads a ConfigMap as env and as a mounted file; the file follows the ConfigMap, the env does not. */
describe('a process pod with a ConfigMap as env and as a volume', () => {
  let dir: string;
  let clock: FakeClock;
  let cache: LocalCache;
  let runtime: ProcessRuntime;
  let edged: Edged;
  const changes = new Subject<void>();
  const hold = (o: KubeObject & { kind: string }) => {
    holdIn(cache, o);
    changes.next();
  };
  const newEdged = () =>
    new Edged({ cache, runtime, clock, timing, logger: silentLogger, hostIP: '127.0.0.1', onStatusQueued: () => {}, volumeHosts: edgeVolumeHosts({ dataDir: dir, hostRoot: join(dir, 'host'), clock }) });
  const logged = async () => {
    const [c] = await runtime.listContainers();
    return c ? (await runtime.logs(c.id)).map((l) => l.text) : [];
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-proc-cfg-'));
    clock = new FakeClock();
    cache = createMemoryCache();
    runtime = await ProcessRuntime.open({ dataDir: dir, clock });
    edged = newEdged();
    edged.start(changes);
  });
  afterEach(async () => {
    await edged.stop();
    runtime.close();
    await (await ProcessRuntime.open({ dataDir: dir, clock, reboot: true })).close(); // kills what still runs
    await rm(dir, { recursive: true, force: true });
  });

  it('reads env=fast and the file at $KEDGE_ROOT/etc/cfg; after the ConfigMap changes, the file says slow and the env still fast', async () => {
    hold(settings('fast', '1'));
    hold(web);
    await eventually(clock, async () => (await logged()).includes('env=fast file=fast relative=fast'), 'the first reading', { wallTimeoutMs: 15_000 });
    const status = cache.objects().find((o) => o.kind === 'Pod')!.object.status!;
    expect(status.containerStatuses![0]!.volumeMounts).toEqual([{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }]);

    // The edge restarts: the new one adopts the process, its mounts and root, and keeps its volume up to date.
    const [before] = await runtime.listContainers();
    await edged.stop();
    runtime.close();
    runtime = await ProcessRuntime.open({ dataDir: dir, clock });
    edged = newEdged();
    edged.start(changes);
    await edged.sync();
    const [adopted] = await runtime.listContainers();
    expect(adopted).toMatchObject({ id: before!.id, state: 'running', mounts: before!.mounts });

    hold(settings('slow', '2'));
    await eventually(clock, async () => (await logged()).includes('env=fast file=slow relative=slow'), 'the file changed, the env not', { wallTimeoutMs: 15_000 });
    expect(await readdir(join(dir, 'pods'))).toEqual(['u1']);

    cache.delete({ kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1' });
    changes.next();
    await eventually(clock, async () => (await runtime.listContainers()).length === 0 && (await readdir(join(dir, 'pods'))).length === 0, 'the pod and its volumes gone', { wallTimeoutMs: 15_000 });
  });
});
