import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { DemoClusterOptions, ScenarioCluster } from '../../sim/scenario/cluster.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { runScenarioSession } from '../../sim/scenario/session.js';

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
});
