import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { LOCK_DIR, lockDataDir, type DataDirLock } from '../../shared/data-dir-lock.js';
import type { Logger } from '../../shared/log.js';
import { makePrivateDir, writePrivate } from '../../shared/private-file.js';
import { startDemoCluster, type DemoClusterOptions, type ScenarioCluster } from './cluster.js';
import { startCloudsCluster } from './clouds-cluster.js';
import { reportHtml } from './html.js';
import { RunRecorder } from './recorder.js';
import type { ScenarioReport } from './report.js';
import { runSteps } from './run.js';
import type { Scenario } from './types.js';

export interface SessionOptions {
  scenario: Scenario;
  source: string;
  timeScale: number;
  /** Gets report.json, report.html and the demo's data dir (`data/`, held, then emptied). */
  outDir: string;
  clock: Clock;
  logger: Logger;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  /** Every output line of the demo's processes. */
  onLine?: (line: string) => void;
  startCluster?: (o: DemoClusterOptions) => Promise<ScenarioCluster>;
}

export interface SessionResult {
  report: ScenarioReport;
  jsonPath: string;
  htmlPath: string;
}

export async function writeReports(outDir: string, report: ScenarioReport): Promise<Omit<SessionResult, 'report'>> {
  await makePrivateDir(outDir);
  const jsonPath = join(outDir, 'report.json');
  const htmlPath = join(outDir, 'report.html');
  await writePrivate(jsonPath, JSON.stringify(report, null, 2) + '\n');
  await writePrivate(htmlPath, reportHtml(report));
  return { jsonPath, htmlPath };
}

/**
 * Runs a scenario from start to end: a fresh demo (its data dir held, then emptied), the
 * steps, then the demo stopped whatever happened, and the reports written. A data dir some
 * other process holds is refused (Conflict) and left as it is.
 */
export async function runScenarioSession(o: SessionOptions): Promise<SessionResult> {
  const dataDir = join(o.outDir, 'data');
  // Held before it is emptied: a scenario or a demo still running there keeps its data.
  const lock = await lockDataDir(dataDir, { command: 'kedge scenario run', logger: o.logger });
  try {
    return await runHolding(o, dataDir, lock);
  } finally {
    await lock.release();
  }
}

async function runHolding(o: SessionOptions, dataDir: string, lock: DataDirLock): Promise<SessionResult> {
  const say = (line: string): void => o.onProgress?.(line);
  for (const name of await readdir(dataDir)) if (!name.startsWith(LOCK_DIR)) await rm(join(dataDir, name), { recursive: true, force: true });
  const clouds = o.scenario.clouds ?? 1;
  say(`scenario ${o.scenario.name}: ${clouds > 1 ? `${clouds} clouds on one etcd, ` : ''}${o.scenario.nodes} edges, time scale ${o.timeScale} (1 s real = ${o.timeScale} s in the cluster)`);
  say('starting the demo ...');
  const start = o.startCluster ?? (clouds > 1 ? (c: DemoClusterOptions) => startCloudsCluster({ ...c, clouds }) : startDemoCluster);
  let cluster: ScenarioCluster;
  try {
    cluster = await start({ nodes: o.scenario.nodes, dataDir, lock, timeScale: o.timeScale, ...(o.scenario.etcd !== undefined && { etcd: o.scenario.etcd }), ...(o.scenario.keepaliveSeconds !== undefined && { keepaliveSeconds: o.scenario.keepaliveSeconds }), clock: o.clock, logger: o.logger, ...(o.onLine && { onLine: o.onLine }), ...(o.signal && { signal: o.signal }) });
  } catch (err) {
    const rec = new RunRecorder(o.scenario, o.source, o.timeScale, o.clock);
    rec.fail(`the demo did not start: ${(err as Error).message}`);
    const report = rec.report();
    return { report, ...(await writeReports(o.outDir, report)) };
  }
  let report: ScenarioReport;
  try {
    report = await runSteps(o.scenario, { cluster, clock: o.clock, timeScale: o.timeScale, source: o.source, ...(o.signal && { signal: o.signal }), ...(o.onProgress && { onProgress: o.onProgress }) });
  } finally {
    say('stopping the demo ...');
    await cluster.stop();
  }
  return { report, ...(await writeReports(o.outDir, report)) };
}
