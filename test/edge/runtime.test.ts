import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { pass, runUntil, type Check } from '../support/settle.js';
import { waitFor } from '../support/wait.js';
import { nodeScript } from './process-workloads.js';
import { runtimeContract, type RuntimeHarness } from './runtime.contract.js';
import { testNetwork } from '../support/test-network.js';

runtimeContract('sim', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-rt-sim-'));
  const clock = new FakeClock();
  const open = (reboot = false) => SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: 200, reboot });
  const harness: RuntimeHarness = {
    runtime: await open(),
    clock,
    until: (check, what, options) => runUntil(clock, check, what, options),
    aMoment: () => pass(clock, 1_000),
    reopen: (options) => open(options?.reboot),
    runs: () => ({ annotations: { 'kedge.io/start-delay': '0ms' }, container: { image: 'nginx' } }),
    exits: (code) => ({ annotations: { 'kedge.io/start-delay': '0ms', 'kedge.io/crash-after': '1s', 'kedge.io/exit-code': String(code) }, container: {} }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
  return harness;
});

const STEP_MS = 20;

/**
 * Real processes need real time: the fake clock moves on no faster than the wall clock, so a
 * grace period on it is never cut short while a busy machine is slow to deliver a signal.
 */
function alongWallTime(clock: FakeClock) {
  return <T>(check: Check<T>, what: string): Promise<T> =>
    waitFor(async () => (await check()) || (await clock.advance(STEP_MS), false), what, 20_000, STEP_MS);
}

const FOREVER = `process.on('SIGTERM', () => process.exit(0)); console.log('hello'); console.error('world'); setInterval(() => {}, 1000);`;

runtimeContract('process', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-rt-process-'));
  const clock = new FakeClock();
  const opened: ProcessRuntime[] = [];
  const open = async (reboot = false) => {
    for (const old of opened) old.close();
    const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock, reboot });
    opened.push(runtime);
    return runtime;
  };
  const harness: RuntimeHarness = {
    runtime: await open(),
    clock,
    until: alongWallTime(clock),
    aMoment: () => wallDelay(20),
    reopen: (options): Promise<Runtime> => open(options?.reboot),
    runs: () => ({ container: { image: 'ignored', ...nodeScript(FOREVER) } }),
    exits: (code) => ({ container: nodeScript(`process.exit(${code})`) }),
    async cleanup() {
      await open(true); // kills every process still recorded
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
});
