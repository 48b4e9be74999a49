// `npm start [-- demo options]`: `kedge demo`, built first only when a source changed since the
// last build. Before building it asks whether a demo already runs in the data dir (a build would
// rewrite dist/ under it), so that a second `npm start` answers at once.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runBuild, whyBuild } from './build-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const kedgeBin = join(root, 'dist', 'bin', 'kedge.js');
const runningDemoModule = join(root, 'dist', 'bin', 'running-demo.js');
const args = process.argv.slice(2);

/** The demo's --data-dir, as given (undefined: its default). */
function dataDirOf(argv) {
  const at = argv.indexOf('--data-dir');
  if (at >= 0) return argv[at + 1];
  return argv.find((a) => a.startsWith('--data-dir='))?.slice('--data-dir='.length);
}

// In a child: the modules it loads from dist/ are about to be rebuilt, and this process loads the new ones.
const CHECK = `const { runningDemoError } = await import(process.argv[1]);
const error = await runningDemoError(process.argv[2] || undefined);
if (error) { process.stderr.write(error); process.exit(3); }`;

/** Whether a demo runs in the data dir (it said so); checked with the last build, when there is one. */
function demoRunning() {
  if (!existsSync(runningDemoModule)) return false;
  const check = spawnSync(process.execPath, ['--input-type=module', '-e', CHECK, pathToFileURL(runningDemoModule).href, dataDirOf(args) ?? ''], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (check.status !== 3) return false; // none, or a last build too old to tell
  process.stderr.write(check.stderr);
  return true;
}

// One walk of the sources: it says whether to build, and why.
const why = await whyBuild(root);
if (why !== undefined && (demoRunning() || !runBuild(root, why))) {
  process.exitCode = 1;
} else {
  // `kedge demo` in this process, as `node dist/bin/kedge.js demo …` runs it (with dist/ current, it is the one to say that a demo runs already).
  process.argv = [process.argv[0], kedgeBin, 'demo', ...args];
  await import(pathToFileURL(kedgeBin).href);
}
