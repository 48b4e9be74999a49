import { copyFile, mkdir, mkdtemp, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliNameIn } from '../../shared/cli-name.js';
import { repoRoot } from '../../shared/repo-paths.js';
import { run as runIn, type CliRun } from '../support/kedge-cli.js';

const wrapper = join(repoRoot, 'bin', 'kedge');

const run = (file: string, args: string[], cwd: string): Promise<CliRun> => runIn(file, args, { cwd, timeoutMs: 20_000 });

/** bin/kedge, the checkout's way to run the built CLI: `node <checkout>/dist/bin/kedge.js "$@"`. */
describe('bin/kedge', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'kedge-bin-')));
    // A checkout whose dist/bin/kedge.js prints what it was given, and one never built.
    for (const name of ['built', 'unbuilt']) await mkdir(join(dir, name, 'bin'), { recursive: true });
    await copyFile(wrapper, join(dir, 'built', 'bin', 'kedge'));
    await copyFile(wrapper, join(dir, 'unbuilt', 'bin', 'kedge'));
    await mkdir(join(dir, 'built', 'dist', 'bin'), { recursive: true });
    await writeFile(join(dir, 'built', 'dist', 'bin', 'kedge.js'), 'console.log(JSON.stringify({ script: process.argv[1], args: process.argv.slice(2) }));\n');
    await mkdir(join(dir, 'path'));
    await symlink(join(dir, 'built', 'bin', 'kedge'), join(dir, 'path', 'kedge'));
    await symlink(join('..', 'built', 'bin', 'kedge'), join(dir, 'path', 'relative'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is executable, in the tree as in git', async () => {
    expect((await stat(wrapper)).mode & 0o111).toBe(0o111);
    const mode = await run('git', ['ls-files', '-s', 'bin/kedge'], repoRoot);
    expect(mode.stdout).toMatch(/^100755 /);
  });

  it("runs its checkout's dist/bin/kedge.js with every argument as given, from any directory", async () => {
    const out = await run(join(dir, 'built', 'bin', 'kedge'), ['link', 'cut', 'edge 1', '--data-dir', ''], tmpdir());
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ script: join(dir, 'built', 'dist', 'bin', 'kedge.js'), args: ['link', 'cut', 'edge 1', '--data-dir', ''] });
  });

  it('follows a symlink to itself, absolute or relative (kedge on the PATH)', async () => {
    for (const link of ['kedge', 'relative']) {
      const out = await run(join(dir, 'path', link), ['--help'], dir);
      expect(JSON.parse(out.stdout)).toEqual({ script: join(dir, 'built', 'dist', 'bin', 'kedge.js'), args: ['--help'] });
    }
  });

  it('says in one line to build first, and exits 1, when dist/ is missing', async () => {
    const out = await run(join(dir, 'unbuilt', 'bin', 'kedge'), ['link', 'status'], join(dir, 'unbuilt'));
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(`kedge: ${join(dir, 'unbuilt', 'dist', 'bin', 'kedge.js')} is missing: run npm run build first (in ${join(dir, 'unbuilt')})\n`);
  });

  it('runs the built CLI of this checkout', async () => {
    const out = await run('bin/kedge', ['--help'], repoRoot);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Usage: kedge /);
  });
});

describe('the command the CLI prints for itself', () => {
  const checkout = (...present: string[]) => (path: string) => present.includes(path);

  it('is the path to bin/kedge from the current directory in a checkout', () => {
    const exists = checkout('/src/kedge/bin/kedge', '/src/kedge/bin/kedge.ts');
    expect(cliNameIn({ repoRoot: '/src/kedge', cwd: '/src/kedge', exists })).toBe('bin/kedge');
    expect(cliNameIn({ repoRoot: '/src/kedge', cwd: '/src/kedge/docs', exists })).toBe('../bin/kedge');
    expect(cliNameIn({ repoRoot: '/src/kedge', cwd: '/src/kedge/bin', exists })).toBe('./kedge');
  });

  it('is kedge when installed from the package (no wrapper beside the sources)', () => {
    expect(cliNameIn({ repoRoot: '/usr/lib/node_modules/kedge', cwd: '/home/pi', exists: checkout() })).toBe('kedge');
    expect(cliNameIn({ repoRoot: '/opt/kedge', cwd: '/opt/kedge', exists: checkout('/opt/kedge/bin/kedge') })).toBe('kedge');
  });
});
