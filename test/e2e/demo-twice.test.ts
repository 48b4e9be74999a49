import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { repoRoot } from '../../shared/repo-paths.js';
import { readDemoFile, type DemoFile } from '../../sim/demo-file.js';
import { kedgeBin, startRole, type RoleProcess } from '../../sim/role-process.js';
import { run, type CliRun } from '../support/kedge-cli.js';

const FREE_PORTS = ['--api-port', '0', '--mqtt-port', '0', '--local-api-base-port', '0'];

/** A generous deadline: a build would take longer than 5 s, not 60. */
const inRepo = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliRun> => run(command, args, { cwd: repoRoot, env, timeoutMs: 60_000 });

/** A second demo in the data dir of a running one answers at once, naming it, instead of building and failing on its ports. */
describe('a second demo in the same data dir', () => {
  let dir: string;
  let demo: RoleProcess;
  let file: DemoFile;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-twice-'));
    demo = startRole({ name: 'demo', args: ['demo', '--nodes', '1', '--data-dir', dir, ...FREE_PORTS], readyPattern: /^kedge demo ready: /, clock: realClock });
    await demo.ready;
    file = (await readDemoFile(dir))!;
  }, 60_000);
  afterAll(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const expectNamesTheDemo = (stderr: string, startAnother: string): void => {
    expect(stderr).toContain(`error: a kedge demo already runs in ${dir} (pid ${file.pid}); a data dir has one demo\n`);
    expect(stderr).toContain(`  API:        ${file.apiUrl}\n`);
    expect(stderr).toContain(`  kubectl:    kubectl --kubeconfig ${join(dir, 'kubeconfig')} get nodes\n`);
    expect(stderr).toContain(`Stop it with Ctrl-C where it runs (or kill ${file.pid}), or start another beside it:\n  ${startAnother} --data-dir ${dir}-2 ${FREE_PORTS.join(' ')}\n`);
    expect(stderr).not.toMatch(/EADDRINUSE|building/);
  };

  it('npm start names it, how to reach it and how to start another, and exits non-zero without building', async () => {
    const second = await inRepo('npm', ['start', '--', '--data-dir', dir, ...FREE_PORTS]);
    expect(second.code).not.toBe(0);
    expectNamesTheDemo(second.stderr, 'npm start --');
    expect(second.stdout).not.toMatch(/kedge demo ready/);
  }, 90_000);

  it('npm start with dist/ out of date asks before it builds (a build would rewrite dist/ under the running demo)', async () => {
    // A checkout whose dist/ has no build stamp: its start script would build, were no demo running.
    const checkout = await mkdtemp(join(tmpdir(), 'kedge-stale-checkout-'));
    try {
      await cp(join(repoRoot, 'scripts'), join(checkout, 'scripts'), { recursive: true });
      await mkdir(join(checkout, 'dist'));
      await symlink(join(repoRoot, 'dist', 'bin'), join(checkout, 'dist', 'bin'));
      const second = await inRepo(process.execPath, [join(checkout, 'scripts', 'start.mjs'), '--data-dir', dir, ...FREE_PORTS], { ...process.env, npm_lifecycle_event: 'start' });
      expect([second.code, second.stdout]).toEqual([1, '']);
      expectNamesTheDemo(second.stderr, 'npm start --');
    } finally {
      await rm(checkout, { recursive: true, force: true });
    }
  }, 90_000);

  it('kedge demo does too, exit 1', async () => {
    const { npm_lifecycle_event: _, ...env } = process.env;
    const second = await inRepo(process.execPath, [kedgeBin, 'demo', '--data-dir', dir, ...FREE_PORTS], env);
    expect([second.code, second.stdout]).toEqual([1, '']);
    expectNamesTheDemo(second.stderr, 'bin/kedge demo');
  }, 90_000);

  it('the running demo is untouched: still ready, demo.json still its own', async () => {
    expect(await readDemoFile(dir)).toEqual(file);
    expect(demo.child.exitCode).toBeNull();
  });
});
