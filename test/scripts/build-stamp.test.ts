import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginBuild, endBuild, newestSourceChange, STAMP, whyBuild } from '../../scripts/build-stamp.mjs';

/** Times are set by hand (utimes), never waited for: seconds since the epoch. */
const BEFORE = 1_000_000;
const BUILT = 2_000_000;
const AFTER = 3_000_000;

const SOURCES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'ui/tsconfig.json', 'shared/clock.ts', 'cloud/store/store.ts', 'ui/app.ts', 'ui/static/style.css', 'bench/run.ts'];
const NOT_SOURCES = ['shared/clock.test.ts', 'bench/results/2026-01-01.json', 'docs/operations.md', 'README.md', 'cloud/store/notes.txt'];

/** Sets every file's and directory's times under `dir` (the root itself too). */
async function touchAll(dir: string, seconds: number): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await touchAll(path, seconds);
    else await utimes(path, seconds, seconds);
  }
  await utimes(dir, seconds, seconds);
}

describe('the build stamp: is dist/ current?', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kedge-build-stamp-'));
    for (const file of [...SOURCES, ...NOT_SOURCES]) {
      await mkdir(dirname(join(root, file)), { recursive: true });
      await writeFile(join(root, file), 'x');
    }
    await touchAll(root, BEFORE);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A finished `npm run build` that began at BUILT. */
  async function build(): Promise<void> {
    await beginBuild(root);
    await utimes(join(root, 'dist', '.build-begun'), BUILT, BUILT);
    await endBuild(root);
  }

  it('wants a build when there is none', async () => {
    expect(await whyBuild(root)).toBe('no build yet');
  });

  it('is current after a build, with every source older than its beginning', async () => {
    await build();
    expect((await stat(join(root, STAMP))).mtimeMs).toBe(BUILT * 1000);
    expect(await newestSourceChange(root)).toBe(BEFORE * 1000);
    expect(await whyBuild(root)).toBeUndefined();
  });

  it.each(SOURCES)('is stale once %s changes after the build began', async (file) => {
    await build();
    await utimes(join(root, file), AFTER, AFTER);
    expect(await whyBuild(root)).toBe('sources changed since the last build');
  });

  it('counts a source saved in the second the build began as changed', async () => {
    await build();
    await utimes(join(root, 'shared/clock.ts'), BUILT, BUILT);
    expect(await whyBuild(root)).toBe('sources changed since the last build');
  });

  it.each(NOT_SOURCES)('stays current when %s changes (not built)', async (file) => {
    await build();
    await utimes(join(root, file), AFTER, AFTER);
    await writeFile(join(root, 'bench/results/2026-02-02.json'), 'a new result');
    expect(await whyBuild(root)).toBeUndefined();
  });

  it('is stale once a source is removed (its directory changed)', async () => {
    await build();
    await rm(join(root, 'cloud/store/store.ts'));
    expect(await whyBuild(root)).toBe('sources changed since the last build');
  });

  it('wants a build again after one that failed (begun, never ended), and while one runs', async () => {
    await build();
    await beginBuild(root);
    expect(await whyBuild(root)).toBe('the last build did not finish');
  });
});
