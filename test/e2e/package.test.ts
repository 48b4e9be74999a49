import { execFile, execFileSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { repoRoot } from '../../shared/repo-paths.js';
import { readyField, startRole, type RoleProcess } from '../../sim/role-process.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without what an enclosing `npm test` sets (npm_config_prefix and the like would steer the inner npm). */
function plainEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: plainEnv(), maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

async function succeed(command: string, args: string[], cwd: string): Promise<string> {
  const out = await run(command, args, cwd);
  if (out.code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${out.code}:\n${out.stderr}`);
  return out.stdout;
}

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

/** What the tarball may hold: the compiled runtime, the dashboard, and the YAML the scenarios read. */
const SHIPPED = /^(package\.json|README\.md|dist\/.+\.js|dist\/cloud\/apiserver\/schemas\/kube-schemas\.json|dist\/ui\/[^/]+\.(html|css)|examples\/[^/]+\.yaml|scenarios\/(manifests\/)?[^/]+\.yaml)$/;

/**
 * `npm pack`, then the tarball installed with `npm install --omit=dev` into an empty project,
 * as on an edge device that has Node and nothing else: no dev dependencies, no build at install.
 * Needs `npm run build` first; the install reads npm's cache first (--prefer-offline) and
 * asks the registry only for what the cache lacks.
 */
describe('the npm package', () => {
  let dir: string;
  let files: string[];
  let packedBytes: number;
  let project: string;
  let installedBin: string;
  const roles: RoleProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-package-'));
    // The build is the test run's (npm run build): prepare would only build it again.
    const packed = JSON.parse(await succeed('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], repoRoot)) as { filename: string; size: number; files: { path: string }[] }[];
    files = packed[0]!.files.map((f) => f.path);
    packedBytes = packed[0]!.size;
    project = join(dir, 'project');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'edge-device', private: true }) + '\n');
    await succeed('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(dir, packed[0]!.filename)], project);
    installedBin = join(project, 'node_modules', '.bin', 'kedge');
  }, 240_000);

  afterAll(async () => {
    for (const role of roles.reverse()) await role.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('holds the compiled runtime, the dashboard and the scenarios, and no tests, bench results or source maps', () => {
    expect(files.filter((f) => !SHIPPED.test(f))).toEqual([]);
    expect(files.filter((f) => /\.test\.js$|^dist\/test\/|^dist\/bench\/(?!svg\.js$)/.test(f))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['dist/bin/kedge.js', 'dist/ui/index.html', 'dist/ui/app.js', 'scenarios/nodes-rebooted.yaml', 'scenarios/manifests/echo.yaml', 'examples/deployment.yaml']));
  });

  it('installs without dev dependencies and without building', async () => {
    const modules = join(project, 'node_modules');
    expect(await exists(join(modules, 'kedge', 'dist', 'bin', 'kedge.js'))).toBe(true);
    expect(await exists(join(modules, 'typescript'))).toBe(false);
    expect(await exists(join(modules, 'vitest'))).toBe(false);
    const { engines } = JSON.parse(await readFile(join(modules, 'kedge', 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(engines.node).toMatch(/^>=20\.\d+/);
  });

  it('is as large as docs/operations.md says, the tarball and the install (within 40 %)', async () => {
    const docs = await readFile(join(repoRoot, 'docs', 'operations.md'), 'utf8');
    const tarballKb = Number(/kedge-[\d.]+\.tgz: about (\d+) KB/.exec(docs)?.[1]);
    const installMb = Number(/runtime dependencies only \(about (\d+) MB\)/.exec(docs)?.[1]);
    const installedKb = Number(execFileSync('du', ['-sk', join(project, 'node_modules')]).toString().split('\t')[0]);
    const off = (measured: number, said: number): number => Math.abs(measured / said - 1);
    expect(off(packedBytes / 1000, tarballKb), `tarball ${packedBytes} bytes, docs say about ${tarballKb} KB`).toBeLessThan(0.4);
    expect(off(installedKb / 1024, installMb), `install ${installedKb} KiB on disk, docs say about ${installMb} MB`).toBeLessThan(0.4);
  });

  it('answers kedge --help and lists the built-in scenarios from the installed package', async () => {
    const help = await run(installedBin, ['--help'], project);
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toContain('Usage: kedge');
    const list = await run(installedBin, ['scenario', 'list'], project);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('nodes-rebooted');
    expect(list.stdout).toContain('kube-proxy-down'); // its manifest, in scenarios/manifests/, is shipped too
  });

  it('runs a cloud that serves the dashboard, and an edge that joins it, from the installed package', async () => {
    const entry = join(project, 'node_modules', 'kedge', 'dist', 'bin', 'kedge.js');
    const cloudDir = join(dir, 'cloud');
    const cloud = startRole({
      name: 'cloud',
      entry,
      args: ['cloud', '--data-dir', cloudDir, '--api-port', '0', '--mqtt-port', '0', '--store', 'memory'],
      readyPattern: /^kedge cloud ready /,
      clock: realClock,
    });
    roles.push(cloud);
    const ready = await cloud.ready;
    // Plain http answers on the API's port too (from loopback).
    const page = await fetch(readyField(ready, 'api').replace(/^https:/, 'http:') + '/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const { edge: token } = JSON.parse(await readFile(join(cloudDir, 'tokens.json'), 'utf8')) as { edge: string };
    const edge = startRole({
      name: 'edge',
      entry,
      args: ['edge', '--node', 'device-1', '--broker', readyField(ready, 'mqtt'), '--token', token, '--data-dir', join(dir, 'edge'), '--local-api-port', '0'],
      readyPattern: /^kedge edge device-1 ready /,
      clock: realClock,
    });
    roles.push(edge);
    expect(await edge.ready).toMatch(/local-api=http:\/\/127\.0\.0\.1:\d+/);
  }, 60_000);
});
