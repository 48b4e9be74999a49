import { join, resolve } from 'node:path';
import { LOCK_DIR } from '../shared/data-dir-lock.js';
import { entriesOf, judge } from '../shared/lock-holders.js';
import { DEFAULT_DEMO_DATA_DIR, DEMO_COMMAND, readDemoFile, type DemoFile } from '../sim/demo-file.js';

/** A demo that holds its data dir; `file` (its URLs) once it is ready. */
interface RunningDemo {
  pid: number;
  dataDir: string;
  file?: DemoFile;
}

/** The demo that runs in `dataDir` on this machine, if one does: the lock says whether it runs, demo.json where to reach it. */
async function findRunningDemo(dataDir: string): Promise<RunningDemo | undefined> {
  const dir = resolve(dataDir);
  const verdicts = await Promise.all((await entriesOf(join(dir, LOCK_DIR))).map((entry) => judge(entry, dir)));
  const pid = verdicts.find((v) => v.state === 'running' && v.entry.holder?.command === DEMO_COMMAND)?.entry.holder?.pid;
  if (pid === undefined) return undefined;
  const file = await readDemoFile(dir);
  return { pid, dataDir: dir, ...(file?.pid === pid ? { file } : {}) };
}

/**
 * What a second demo says instead of starting: which demo runs, how to reach it, how to start
 * another beside it. `startCommand` starts a demo (`npm start --`, `bin/kedge demo`).
 */
function describeRunningDemo(demo: RunningDemo, dataDirAsGiven: string, startCommand: string): string {
  const reach = demo.file
    ? [
        `  API:        ${demo.file.apiUrl}`,
        `  kubectl:    kubectl --kubeconfig ${join(demo.dataDir, 'kubeconfig')} get nodes`,
        '  Dashboard:  the link in its output (each link logs one browser in)',
      ]
    : ['  It is starting: its API and Dashboard links follow in its output.'];
  return [
    `error: a kedge demo already runs in ${demo.dataDir} (pid ${demo.pid}); a data dir has one demo`,
    ...reach,
    `Stop it with Ctrl-C where it runs (or kill ${demo.pid}), or start another beside it:`,
    `  ${startCommand} --data-dir ${dataDirAsGiven.replace(/\/+$/, '')}-2 --api-port 0 --mqtt-port 0 --local-api-base-port 0`,
    '',
  ].join('\n');
}

/** How the user started this demo, so as to start another the same way. */
const startCommandOf = (env: NodeJS.ProcessEnv): string => (env.npm_lifecycle_event === 'start' ? 'npm start --' : 'bin/kedge demo');

/** The error to print when a demo runs in `dataDir` already; undefined when none does. */
export async function runningDemoError(dataDir = DEFAULT_DEMO_DATA_DIR, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const demo = await findRunningDemo(dataDir);
  return demo && describeRunningDemo(demo, dataDir, startCommandOf(env));
}
