import { cp, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { repoRoot } from '../../shared/repo-paths.js';
import type { DemoFile } from '../../sim/demo-file.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';
import { freePort } from '../support/free-port.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { liveProcesses } from '../support/processes.js';
import { sectionCommands, setsShellState, withDemoPorts, type PortSubstitution } from '../support/readme-script.js';
import { runShellLine } from '../support/shell-line.js';
import { waitFor } from '../support/wait.js';

/** The README's section whose shell blocks run, pasted in order, against a running demo. */
const SECTION = 'With the demo running';
/** A command that states no time answers at once: this allows for a loaded 2-core machine. */
const AT_ONCE_MS = 10_000;
const README = await readFile(join(repoRoot, 'README.md'), 'utf8');
const script = sectionCommands(README, SECTION, AT_ONCE_MS);

const portOf = (url: string): number => Number(new URL(url).port);
const echoServerAlive = async (ip: string, port: number): Promise<boolean> => fetch(`http://${ip}:${port}/healthz`).then(() => true, () => false);

/**
 * The README's "With the demo running" blocks, extracted from README.md now, run line by line
 * with bash as a user pastes them: in a folder laid out as the checkout (bin/ and examples/),
 * against `kedge demo` started there with `--data-dir .kedge/demo` on free ports. Each line
 * must exit 0 within the time it states. The demo's ports replace the README's defaults:
 * 8080 (API), 1883 (MQTT), 10551… (edge i's local API, 10550 + i) and 18080
 * (examples/process-pod.yaml's echo server, whose copy here listens on a free port).
 */
describe.skipIf(!hasKubectl)(`README.md "${SECTION}", pasted in order against a demo`, () => {
  let checkout: string;
  let demo: RoleProcess;
  let ports: PortSubstitution[];
  let echoPort: number;
  let failed: string | undefined;
  const preamble: string[] = [];
  const demoLines: string[] = [];

  beforeAll(async () => {
    checkout = await realpath(await mkdtemp(join(tmpdir(), 'kedge-readme-')));
    echoPort = await freePort();
    await symlink(join(repoRoot, 'bin'), join(checkout, 'bin'));
    await cp(join(repoRoot, 'examples'), join(checkout, 'examples'), { recursive: true });
    const processPod = join(checkout, 'examples', 'process-pod.yaml');
    await writeFile(processPod, (await readFile(processPod, 'utf8')).replaceAll('18080', String(echoPort)));
    const dataDir = join(checkout, '.kedge', 'demo');
    await mkdir(dataDir, { recursive: true });
    demo = startRole({
      name: 'demo',
      args: ['demo', '--data-dir', dataDir, '--api-port', '0', '--mqtt-port', '0', '--local-api-base-port', '0'],
      readyPattern: /^kedge demo ready: /,
      clock: realClock,
      onLine: (line) => demoLines.push(line),
    });
    await demo.ready;
    const file = JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8')) as DemoFile;
    ports = [
      { readme: 8080, actual: portOf(file.apiUrl), what: "the cloud's API" },
      { readme: 1883, actual: portOf(file.brokerUrl), what: 'the MQTT broker' },
      ...file.nodes.map((n, i) => ({ readme: 10551 + i, actual: portOf(n.localApiUrl), what: `${n.name}'s local API` })),
      { readme: 18080, actual: echoPort, what: "examples/process-pod.yaml's echo server" },
      { readme: 28080, actual: await freePort(), what: "kubectl port-forward's local port" },
    ];
  }, 60_000);

  afterAll(async () => {
    if (demo && checkout) {
      const kubectl = kubectlIn(checkout, join(checkout, '.kedge', 'demo', 'kubeconfig'));
      const ip = (await kubectl('get', 'pod', 'echo-server', '--ignore-not-found', '-o', 'jsonpath={.status.podIP}')).stdout;
      await kubectl('delete', 'pod', 'echo-server', '--ignore-not-found', '--timeout=20s');
      if (ip) await waitFor(async () => !(await echoServerAlive(ip, echoPort)), 'the echo server gone', 20_000, 200).catch(() => undefined);
    }
    await demo?.stop(10_000);
    await killLeftEchoServer(echoPort);
    if (checkout) await rm(checkout, { recursive: true, force: true });
    await rm('/tmp/kedge-note.txt', { force: true }); // the README's kubectl cp into the echo server, a process sharing this machine's files
  }, 60_000);

  it('finds shell blocks in the section', () => {
    expect(script.length).toBeGreaterThan(10);
  });

  it('the demo prints its kedge command as the path to bin/kedge, which runs the built CLI at once', () => {
    const wrapper = relative(process.cwd(), join(repoRoot, 'bin', 'kedge'));
    expect(demoLines.join('\n')).toContain(` ${wrapper} link cut edge-1 --data-dir ${join(checkout, '.kedge', 'demo')} `);
    expect(demoLines.join('\n')).not.toContain('npx kedge');
  });

  for (const step of script) {
    it(`README.md:${step.line}: ${step.command}`, async (ctx) => {
      if (failed) ctx.skip(`an earlier line failed (${failed})`);
      const command = withDemoPorts(step.command, ports);
      const env = { PATH: process.env.PATH, HOME: checkout, LANG: 'C.UTF-8', TERM: 'dumb' };
      const run = await runShellLine(command, { cwd: checkout, env, limitMs: step.limitMs, preamble });
      if (setsShellState(command)) preamble.push(command);
      const verdict = run.timedOut ? `still running after ${step.limitMs / 1000} s` : run.code !== 0 ? `exited ${run.code} after ${(run.elapsedMs / 1000).toFixed(1)} s` : undefined;
      if (verdict) {
        failed = `README.md:${step.line}`;
        const demoTail = demoLines.slice(-15).join('\n');
        throw new Error(`README.md:${step.line}: \`${command}\` ${verdict}\n--- its output:\n${run.output}\n--- the demo's last lines:\n${demoTail}`);
      }
    }, step.limitMs + 10_000);
  }
});

/** The echo server outlives its pod when the demo stops first (a process pod is a real process): end the one on `port`. */
async function killLeftEchoServer(port: number): Promise<void> {
  for (const p of await liveProcesses()) {
    const environ = await readFile(`/proc/${p.pid}/environ`, 'utf8').catch(() => '');
    if (environ.split('\0').includes(`PORT=${port}`) && p.args[1] === '-e') process.kill(p.pid, 'SIGKILL');
  }
}
