// `node scripts/build.mjs begin|end`: the first and last steps of `npm run build` (the stamp);
// `node scripts/build.mjs if-stale`: builds only when a source changed since the last build.
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { beginBuild, buildIfStale, endBuild } from './build-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const steps = { begin: beginBuild, end: endBuild, 'if-stale': buildIfStale };
const step = steps[process.argv[2]];
if (!step) {
  process.stderr.write(`usage: node scripts/build.mjs ${Object.keys(steps).join('|')}\n`);
  process.exitCode = 2;
} else if ((await step(root)) === false) {
  process.exitCode = 1;
}
