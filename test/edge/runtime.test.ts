import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { nodeScript } from './process-workloads.js';
import { runtimeContract, type RuntimeHarness } from './runtime.contract.js';

runtimeContract('sim', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-rt-sim-'));
  const clock = new FakeClock();
  const open = (reboot = false) => SimRuntime.open({ nodeName: 'edge-1', dataDir: dir, clock, defaultStartMs: 200, reboot });
  const harness: RuntimeHarness = {
    runtime: await open(),
    clock,
    reopen: (options) => open(options?.reboot),
    runs: () => ({ annotations: { 'kedge.io/start-delay': '0ms' }, container: { image: 'nginx' } }),
    exits: (code) => ({ annotations: { 'kedge.io/start-delay': '0ms', 'kedge.io/crash-after': '1s', 'kedge.io/exit-code': String(code) }, container: {} }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
  return harness;
});

const FOREVER = `process.on('SIGTERM', () => process.exit(0)); console.log('hello'); console.error('world'); setInterval(() => {}, 1000);`;

runtimeContract('process', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-rt-process-'));
  const clock = new FakeClock();
  const opened: ProcessRuntime[] = [];
  const open = async (reboot = false) => {
    for (const old of opened) old.close();
    const runtime = await ProcessRuntime.open({ dataDir: dir, clock, reboot });
    opened.push(runtime);
    return runtime;
  };
  const harness: RuntimeHarness = {
    runtime: await open(),
    clock,
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
