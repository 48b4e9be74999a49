import { readFile } from 'node:fs/promises';
import type { Pod } from '../../shared/types.js';
import { isRunning } from './processes.js';
import { waitFor } from './wait.js';

/** What a container of markerPod runs: it writes `<MARK>.pid` when up and `<MARK>.term` on SIGTERM, then exits. */
const SCRIPT = [
  "const fs = require('node:fs');",
  "process.on('SIGTERM', () => { fs.writeFileSync(process.env.MARK + '.term', ''); process.exit(0); });",
  "fs.writeFileSync(process.env.MARK + '.pid', String(process.pid));",
  'setInterval(() => {}, 1000);',
].join('\n');

/** A process pod whose container says, in files beside `mark`, its pid and whether it got SIGTERM. */
export function markerPod(name: string, mark: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { runtimeClassName: 'process', containers: [{ name: 'main', image: 'node', env: [{ name: 'MARK', value: mark }], command: ['node', '-e', SCRIPT] }] },
  };
}

/** The pid of markerPod's container, once it runs. */
export function markerPid(mark: string, timeoutMs = 20_000): Promise<number> {
  return waitFor(async () => Number(await readFile(`${mark}.pid`, 'utf8').catch(() => '')) || undefined, `${mark}.pid`, timeoutMs, 50);
}

/** Kills what is left of a markerPod (test cleanup). */
export async function killMarker(mark: string): Promise<void> {
  const pid = Number(await readFile(`${mark}.pid`, 'utf8').catch(() => ''));
  if (pid && (await isRunning(pid))) process.kill(pid, 'SIGKILL');
}
