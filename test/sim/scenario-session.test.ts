import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { LOCK_DIR, lockDataDir } from '../../shared/data-dir-lock.js';
import { silentLogger } from '../../shared/log.js';
import type { DemoClusterOptions, ScenarioCluster } from '../../sim/scenario/cluster.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { runScenarioSession } from '../../sim/scenario/session.js';

/** The socket a holder of a data dir listens on (shared/lock-probe.ts). */
const HOLDER_SOCKET = expect.stringMatching(/^owner\.lock\.\d+\.[0-9a-f]+\.sock$/) as string;

describe('a scenario session', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('passes Ctrl-C on to a demo still starting, and reports that it did not start', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-session-'));
    const scenario = parseScenario({ name: 't', description: 'd', nodes: 1, steps: [{ wait: '1s' }] }, 't.yaml');
    const interrupt = new AbortController();
    let starting: (() => void) | undefined;
    const started = new Promise<void>((resolve) => (starting = resolve));
    const startCluster = (o: DemoClusterOptions): Promise<ScenarioCluster> =>
      new Promise((_, reject) => {
        starting?.();
        o.signal?.addEventListener('abort', () => reject(o.signal!.reason as Error));
      });
    const session = runScenarioSession({ scenario, source: 't.yaml', timeScale: 10, outDir: dir, clock: new FakeClock(), logger: silentLogger, signal: interrupt.signal, startCluster });
    await started;
    interrupt.abort(new Error('interrupted'));
    const { report } = await session;
    expect(report.passed).toBe(false);
    expect(report.error).toBe('the demo did not start: interrupted');
  }, 5_000); // without the signal reaching the start, the session never ends

  it('refuses a data dir another process holds, and leaves it as it is', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-session-'));
    const dataDir = join(dir, 'data');
    const held = await lockDataDir(dataDir, { command: 'kedge demo', logger: silentLogger });
    await mkdir(join(dataDir, 'store'));
    await writeFile(join(dataDir, 'store', 'wal'), 'acknowledged writes');
    const scenario = parseScenario({ name: 't', description: 'd', nodes: 1, steps: [{ wait: '1s' }] }, 't.yaml');
    let started = false;
    const startCluster = (): Promise<ScenarioCluster> => {
      started = true;
      return Promise.reject(new Error('not reached'));
    };
    const session = runScenarioSession({ scenario, source: 't.yaml', timeScale: 10, outDir: dir, clock: new FakeClock(), logger: silentLogger, startCluster });
    await expect(session).rejects.toThrow(`data dir ${dataDir} is in use by pid ${process.pid} (kedge demo)`);
    expect(started).toBe(false);
    expect((await readdir(dataDir)).sort()).toEqual([LOCK_DIR, HOLDER_SOCKET, 'store']); // the holder's socket is its own
    await held.release();
  });

  it('holds its data dir while the demo starts there, and lets it go after', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-session-'));
    const dataDir = join(dir, 'data');
    await mkdir(join(dataDir, 'old-run'), { recursive: true });
    const scenario = parseScenario({ name: 't', description: 'd', nodes: 1, keepalive: '10s', steps: [{ wait: '1s' }] }, 't.yaml');
    let seen: string[] = [];
    const startCluster = async (o: DemoClusterOptions): Promise<ScenarioCluster> => {
      seen = await readdir(dataDir);
      expect(o.lock?.dataDir).toBe(dataDir);
      expect(o.keepaliveSeconds).toBe(10); // the scenario's keepalive reaches the demo
      throw new Error('no demo here');
    };
    const { report } = await runScenarioSession({ scenario, source: 't.yaml', timeScale: 10, outDir: dir, clock: new FakeClock(), logger: silentLogger, startCluster });
    expect(report.error).toBe('the demo did not start: no demo here');
    expect(seen.sort()).toEqual([LOCK_DIR, HOLDER_SOCKET]); // emptied, but for the lock and the socket that says it is held
    expect(await readdir(dataDir)).toEqual([]);
  });
});
