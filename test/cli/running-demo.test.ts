import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runningDemoError } from '../../bin/running-demo.js';
import { LOCK_DIR, lockDataDir, type DataDirLock } from '../../shared/data-dir-lock.js';
import { silentLogger } from '../../shared/log.js';
import { DEMO_COMMAND, type DemoFile } from '../../sim/demo-file.js';

/** A pid no process can have (beyond any pid_max), for a holder that is gone. */
const NO_SUCH_PID = 2 ** 30;

const demoFile = (pid: number): DemoFile => ({
  pid,
  controlUrl: 'http://127.0.0.1:40001',
  apiUrl: 'https://127.0.0.1:40002',
  brokerUrl: 'mqtt://127.0.0.1:40003',
  nodes: [{ name: 'edge-1', localApiUrl: 'http://127.0.0.1:40004', proxyUrl: 'mqtt://127.0.0.1:40005' }],
});

/** What a second demo is told about the one that holds its data dir (this test process plays the running demo). */
describe('the running demo of a data dir', () => {
  let dir: string;
  let lock: DataDirLock | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-running-demo-'));
  });
  afterEach(async () => {
    await lock?.release();
    lock = undefined;
    await rm(dir, { recursive: true, force: true });
  });
  const hold = async (command: string): Promise<void> => {
    lock = await lockDataDir(dir, { command, logger: silentLogger });
  };
  const error = (env: NodeJS.ProcessEnv = {}): Promise<string | undefined> => runningDemoError(dir, env);

  it('is none in a data dir nobody holds, whatever an old demo.json says', async () => {
    expect(await error()).toBeUndefined();
    await writeFile(join(dir, 'demo.json'), JSON.stringify(demoFile(process.pid)));
    expect(await error()).toBeUndefined();
  });

  it('is none when a demo that held it is gone (kill -9 leaves its lock and demo.json)', async () => {
    await mkdir(join(dir, LOCK_DIR));
    await writeFile(join(dir, LOCK_DIR, 'gone.json'), JSON.stringify({ pid: NO_SUCH_PID, host: hostname(), command: DEMO_COMMAND }));
    await writeFile(join(dir, 'demo.json'), JSON.stringify(demoFile(NO_SUCH_PID)));
    expect(await error()).toBeUndefined();
  });

  it('is none when a cloud, not a demo, holds it (the lock names that one)', async () => {
    await hold('kedge cloud');
    expect(await error()).toBeUndefined();
  });

  it('names a ready demo: pid, data dir, API, kubeconfig, dashboard, how to stop it and to start another', async () => {
    await hold(DEMO_COMMAND);
    await writeFile(join(dir, 'demo.json'), JSON.stringify(demoFile(process.pid)));
    expect(await error({ npm_lifecycle_event: 'start' })).toBe(
      [
        `error: a kedge demo already runs in ${dir} (pid ${process.pid}); a data dir has one demo`,
        '  API:        https://127.0.0.1:40002',
        `  kubectl:    kubectl --kubeconfig ${join(dir, 'kubeconfig')} get nodes`,
        '  Dashboard:  the link in its output (each link logs one browser in)',
        `Stop it with Ctrl-C where it runs (or kill ${process.pid}), or start another beside it:`,
        `  npm start -- --data-dir ${dir}-2 --api-port 0 --mqtt-port 0 --local-api-base-port 0`,
        '',
      ].join('\n'),
    );
  });

  it('names a demo still starting (no demo.json of its own yet), and says how to start another the way this one was', async () => {
    await hold(DEMO_COMMAND);
    await writeFile(join(dir, 'demo.json'), JSON.stringify(demoFile(NO_SUCH_PID))); // an earlier demo's
    const said = await error();
    expect(said).toContain(`error: a kedge demo already runs in ${dir} (pid ${process.pid})`);
    expect(said).toContain('  It is starting: its API and Dashboard links follow in its output.\n');
    expect(said).not.toContain('40002');
    expect(said).toContain(`  bin/kedge demo --data-dir ${dir}-2 `);
  });
});
