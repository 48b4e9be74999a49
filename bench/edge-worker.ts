import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startEdge, type EdgeHandle } from '../edge/main.js';
import { podsIn } from '../edge/metamanager/local-cache.js';
import { wallDelay } from '../shared/clock.js';
import { createLogger, type Logger } from '../shared/log.js';
import { settledMemory } from './edge-memory.js';

/*
 * The edge of the edge benchmark, alone in its own process (node --expose-gc), so that its
 * heap holds nothing of the cloud's: a real edge (lowdb cache, sim runtime, no local API).
 * Prints `ready` after its first sync; then answers each stdin line with one JSON line:
 *   memory    heap in use and RSS after full collections
 *   state     pods, ConfigMaps and Secrets held, containers running, statuses not yet acknowledged
 *   syncs <n> the wall time of each of n edged syncs run back to back (ms)
 *   reboot    restarts the edge as after a node reboot and times its first sync and
 *             until every held pod shows Running in the edge's own status
 * Stops the edge and removes its data when stdin closes.
 * Usage: node --expose-gc edge-worker.js '{"brokerUrl":…,"token":…,"nodeName":…}'
 */

interface WorkerOptions {
  brokerUrl: string;
  token: string;
  nodeName: string;
  maxPods: number;
}

const SHOWN_PROBLEMS = 20;

/** A logger that passes on the first warnings and errors to stderr (a failing action repeats every sync). */
function problemsLogger(nodeName: string): Logger {
  let shown = 0;
  return createLogger(`edge/${nodeName}`, (line) => {
    if (!/ (WARN |ERROR) /.test(line) || shown > SHOWN_PROBLEMS) return;
    process.stderr.write(++shown > SHOWN_PROBLEMS ? `(further edge warnings not shown)\n` : line + '\n');
  });
}

function start(o: WorkerOptions, dataDir: string, logger: Logger, reboot = false): Promise<EdgeHandle> {
  return startEdge({ nodeName: o.nodeName, brokerUrl: o.brokerUrl, token: o.token, dataDir, localApiPort: null, logger, reboot, maxPods: o.maxPods });
}

async function state(edge: EdgeHandle): Promise<{ pods: number; configMaps: number; secrets: number; running: number; outbox: number }> {
  const running = (await edge.runtime.listContainers()).filter((c) => c.state === 'running').length;
  const held = (kind: string): number => edge.cache.objects().filter((o) => o.kind === kind).length;
  return { pods: podsIn(edge.cache).length, configMaps: held('ConfigMap'), secrets: held('Secret'), running, outbox: edge.cache.outbox().length };
}

async function timeSyncs(edge: EdgeHandle, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    await edge.edged.sync();
    samples.push(performance.now() - began);
  }
  return samples;
}

/** Every held pod Running with every container running and ready, in the edge's own status (after a reboot the phase alone stays Running). */
const allRunning = (edge: EdgeHandle): boolean =>
  podsIn(edge.cache).every((pod) => {
    const containers = pod.status?.containerStatuses ?? [];
    return pod.status?.phase === 'Running' && containers.length > 0 && containers.every((c) => c.ready && c.state?.running);
  });

async function timeReboot(o: WorkerOptions, dataDir: string, logger: Logger, old: EdgeHandle): Promise<{ edge: EdgeHandle; firstSyncMs: number; allRunningMs: number }> {
  await old.stop();
  const began = performance.now();
  const edge = await start(o, dataDir, logger, true);
  await edge.edged.ready();
  const firstSyncMs = performance.now() - began;
  const deadline = began + 60_000;
  while (!allRunning(edge)) {
    if (performance.now() > deadline) throw new Error('pods not Running 60 s after the reboot');
    await wallDelay(5);
  }
  return { edge, firstSyncMs, allRunningMs: performance.now() - began };
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
  const dataDir = await mkdtemp(join(tmpdir(), 'kedge-bench-edge-'));
  const logger = problemsLogger(options.nodeName);
  let edge = await start(options, dataDir, logger);
  const reply = (value: unknown): void => void process.stdout.write(JSON.stringify(value) + '\n');
  try {
    await edge.edged.ready();
    reply('ready');
    for await (const line of createInterface({ input: process.stdin })) {
      const [command, arg] = line.split(' ');
      if (command === 'memory') reply(await settledMemory());
      else if (command === 'state') reply(await state(edge));
      else if (command === 'syncs') reply(await timeSyncs(edge, Number(arg)));
      else if (command === 'reboot') {
        const rebooted = await timeReboot(options, dataDir, logger, edge);
        edge = rebooted.edge;
        reply({ firstSyncMs: rebooted.firstSyncMs, allRunningMs: rebooted.allRunningMs });
      } else reply({ error: `unknown command ${JSON.stringify(line)}` });
    }
  } finally {
    await edge.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
