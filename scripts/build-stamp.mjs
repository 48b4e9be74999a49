// Whether dist/ is current: `npm run build` stamps dist/ when it finishes, and the stamp's
// mtime is the moment that build began (a source saved during a build counts as changed).
// `npm start`, `npm test` and `npm run bench` build only when a source is newer.
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';

export const STAMP = join('dist', '.build-stamp');
const BEGUN = join('dist', '.build-begun');

/** What `npm run build` compiles or copies: TypeScript under these (tests aside), everything under ui/static. */
const SOURCE_DIRS = ['bin', 'bench', 'cloud', 'edge', 'shared', 'sim', 'ui'];
const SOURCE_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', join('ui', 'tsconfig.json')];
/** Written by runs, not by people: bench/results. */
const SKIPPED_DIRS = new Set([join('bench', 'results')]);

const STATIC = `${join('ui', 'static')}/`;
const isSource = (path) => path.startsWith(STATIC) || (path.endsWith('.ts') && !path.endsWith('.test.ts'));

/**
 * The newest mtime (ms) among the sources and their directories (a file removed or renamed
 * changes its directory's mtime, not any file's); 0 when there are none.
 */
export async function newestSourceChange(root) {
  const files = await Promise.all(SOURCE_FILES.map((file) => mtimeOf(join(root, file))));
  const dirs = await Promise.all(SOURCE_DIRS.map((dir) => newestUnder(root, dir)));
  return Math.max(0, ...files, ...dirs);
}

async function newestUnder(root, dir) {
  let newest = await mtimeOf(join(root, dir));
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED_DIRS.has(path)) newest = Math.max(newest, await newestUnder(root, path));
    else if (entry.isFile() && isSource(path)) newest = Math.max(newest, await mtimeOf(join(root, path)));
  }
  return newest;
}

const mtimeOf = (path) => stat(path).then((s) => s.mtimeMs, () => 0);

/** Why `root` needs a build (as "sources changed since the last build"), or undefined when dist/ is current. */
export async function whyBuild(root) {
  const built = await mtimeOf(join(root, STAMP));
  if (built === 0) return (await mtimeOf(join(root, BEGUN))) === 0 ? 'no build yet' : 'the last build did not finish';
  return (await newestSourceChange(root)) >= built ? 'sources changed since the last build' : undefined;
}

/** First step of `npm run build`: forget the last stamp (a build that fails leaves none) and note when this one began. */
export async function beginBuild(root) {
  await mkdir(join(root, 'dist'), { recursive: true });
  await rm(join(root, STAMP), { force: true });
  await writeFile(join(root, BEGUN), '');
}

/** Last step of `npm run build`: the note of its beginning becomes the stamp (a rename keeps its mtime). */
export async function endBuild(root) {
  await rename(join(root, BEGUN), join(root, STAMP));
}

/** Runs `npm run build` in `root`, saying why (whyBuild's answer); false when the build failed. */
export function runBuild(root, why) {
  process.stderr.write(`building (${why})…\n`);
  return spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status === 0;
}

/** Runs `npm run build` in `root` when dist/ is not current (see runBuild); false when the build failed. */
export async function buildIfStale(root) {
  const why = await whyBuild(root);
  return why === undefined || runBuild(root, why);
}
