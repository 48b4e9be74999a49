import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { startDemo, type Demo } from '../../sim/demo.js';
import { kedge } from '../support/kedge-cli.js';
import { KUBECTL, hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';
import { liveProcesses } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

/** A process pod on edge-1 that only waits: what the streams reach. */
const shell = (marker: string, workingDir: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'shell' },
  spec: {
    nodeName: 'edge-1',
    runtimeClassName: 'process',
    containers: [{ name: 'main', image: 'node', workingDir, env: [{ name: 'GREETING', value: marker }, { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
      command: ['node', '-e', `require('node:http').createServer((q, s) => s.end('forwarded ' + q.url)).listen(8080, process.env.POD_IP); setInterval(() => console.log('tick'), 200)`] }],
  },
} as Pod);

/** The real kubectl with bytes on its stdin. */
function kubectlWithInput(home: string, kubeconfig: string, input: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, ['--cache-dir', join(home, 'kube-cache'), ...args], { env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * kubectl exec, attach, cp and port-forward against a demo's process pod, through the API, the
 * broker and the edge: real processes all the way. Then the cable: a stream that is open when it
 * is pulled ends with an error and leaves no process on the edge; a new one fails at once.
 */
describe.skipIf(!hasKubectl)('kubectl streams against a running demo', () => {
  let dir: string;
  let demo: Demo;
  let kubectl: (...args: string[]) => Promise<Run>;
  const marker = `kedge-streams-${process.pid}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-streams-demo-'));
    demo = await startDemo({ nodes: 1, dataDir: dir, apiPort: 0, mqttPort: 0, localApiBasePort: 0, timeScale: 10, clock: realClock, logger: silentLogger });
    kubectl = kubectlIn(dir, demo.kubeconfigPath);
    await mkdir(join(dir, 'pod-dir'));
    await writeFile(join(dir, 'shell.json'), JSON.stringify(shell(marker, join(dir, 'pod-dir'))));
    expect((await kubectl('create', '-f', join(dir, 'shell.json'))).code).toBe(0);
    await waitFor(async () => (await kubectl('get', 'pod', 'shell', '-o', 'jsonpath={.status.phase}')).stdout === 'Running', 'shell Running', 30_000, 100);
  }, 90_000);

  afterAll(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('exec runs in the pod\'s environment and reports its exit code as kubectl does', async () => {
    expect(await kubectl('exec', 'shell', '--', 'node', '-e', 'console.log(process.env.GREETING)')).toMatchObject({ code: 0, stdout: `${marker}\n` });
    const failed = await kubectl('exec', 'shell', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3');
    expect(failed.code).toBe(3);
    expect(failed.stdout).toBe('out\n');
    expect(failed.stderr).toContain('err\n');
    expect(failed.stderr).toContain('command terminated with exit code 3');
  });

  it('exec -i carries stdin to the process, and its end of file', async () => {
    expect(await kubectlWithInput(dir, demo.kubeconfigPath, 'one\ntwo\n', 'exec', '-i', 'shell', '--', 'wc', '-l')).toMatchObject({ code: 0, stdout: '2\n' });
  });

  it('cp copies a file into the pod and back out', async () => {
    await writeFile(join(dir, 'note.txt'), `hello ${marker}\n`);
    expect((await kubectl('cp', join(dir, 'note.txt'), 'shell:note.txt')).code).toBe(0);
    expect((await kubectl('exec', 'shell', '--', 'cat', 'note.txt')).stdout).toBe(`hello ${marker}\n`);
    expect((await kubectl('cp', 'shell:note.txt', join(dir, 'back.txt'))).code).toBe(0);
    expect(await readFile(join(dir, 'back.txt'), 'utf8')).toBe(`hello ${marker}\n`);
  });

  it('attach streams the container\'s own output', async () => {
    const child = spawn(KUBECTL, ['--cache-dir', join(dir, 'kube-cache'), 'attach', 'shell', '-c', 'main'], { env: { ...process.env, HOME: dir, KUBECONFIG: demo.kubeconfigPath } });
    let ticked = false;
    try {
      for await (const line of createInterface({ input: child.stdout })) {
        ticked = line === 'tick';
        if (ticked) break;
      }
      expect(ticked).toBe(true);
    } finally {
      child.kill();
    }
  });

  it('port-forward tunnels a local port to the pod\'s port', async () => {
    const child = spawn(KUBECTL, ['--cache-dir', join(dir, 'kube-cache'), 'port-forward', 'pod/shell', ':8080'], { env: { ...process.env, HOME: dir, KUBECONFIG: demo.kubeconfigPath } });
    try {
      let port = 0;
      for await (const line of createInterface({ input: child.stdout })) {
        const m = /^Forwarding from 127\.0\.0\.1:(\d+)/.exec(line);
        if (m) {
          port = Number(m[1]);
          break;
        }
      }
      for (const path of ['/a', '/b']) expect(await (await fetch(`http://127.0.0.1:${port}${path}`)).text()).toBe(`forwarded ${path}`);
    } finally {
      child.kill();
    }
  });

  it('a stream open when the cable is pulled ends with an error naming the node, and leaves no process on the edge; a new one fails at once', async () => {
    const sleeper = `sleep ${1000 + (process.pid % 1000)}`;
    const open = kubectl('exec', 'shell', '--', 'sh', '-c', sleeper);
    await waitFor(async () => (await liveProcesses()).some((p) => p.args.join(' ').includes(sleeper)), 'the exec\'d process running', 15_000, 100);
    expect((await kedge('link', 'cut', 'edge-1', '--data-dir', dir)).code).toBe(0);
    try {
      const ended = await open;
      expect(ended.code).not.toBe(0);
      expect(ended.stderr).toContain('edge-1');
      await waitFor(async () => !(await liveProcesses()).some((p) => p.args.join(' ').includes(sleeper)), 'the exec\'d process gone', 15_000, 100);
      const began = performance.now();
      const refused = await kubectl('exec', 'shell', '--', 'true');
      expect(performance.now() - began).toBeLessThan(5_000);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/node "edge-1" is unreachable since/);
    } finally {
      expect((await kedge('link', 'heal', 'edge-1', '--data-dir', dir)).code).toBe(0);
    }
  }, 60_000);
});
