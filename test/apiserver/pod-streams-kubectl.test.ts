import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as createConnection, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeKubeconfig } from '../../cloud/apiserver/auth/credentials.js';
import { KedgeError } from '../../shared/errors.js';
import type { Pod } from '../../shared/types.js';
import { ADMIN, guardedApi, VIEWER, type GuardedApi } from '../support/guarded-api.js';
import { hasKubectl, KUBECTL, kubectlIn, type Run } from '../support/kubectl.js';
import { LocalPodStreams } from '../support/local-pod-streams.js';

/** The real kubectl against the apiserver's WebSocket streams; the pod's side runs as local processes and sockets. */
describe.skipIf(!hasKubectl)('kubectl exec, cp and port-forward', () => {
  let api: GuardedApi;
  let dir: string;
  let podDir: string;
  let streams: LocalPodStreams;
  let echo: Server;
  let kubectl: (...args: string[]) => Promise<Run>;
  let asViewer: (...args: string[]) => Promise<Run>;
  let adminConfig: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-streams-'));
    podDir = await mkdtemp(join(tmpdir(), 'kedge-pod-'));
    echo = createServer((socket) => socket.on('data', (d: Buffer) => socket.write(`echo:${d.toString()}`)).on('error', () => {}));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    streams = new LocalPodStreams(podDir, { 80: (echo.address() as AddressInfo).port });
    api = await guardedApi({ tls: true, deps: { podStreams: streams } });
    adminConfig = await writeKubeconfig(join(dir, 'admin'), api.server.url, ADMIN, api.caPem);
    kubectl = kubectlIn(join(dir, 'admin'), adminConfig);
    asViewer = kubectlIn(join(dir, 'viewer'), await writeKubeconfig(join(dir, 'viewer'), api.server.url, VIEWER, api.caPem));
    const client = api.api.loopback(ADMIN);
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'p' }, spec: { nodeName: 'edge-1', containers: [{ name: 'c', image: 'busybox' }] } };
    const created = await client.create<Pod>({ resource: 'pods', namespace: 'default' }, pod);
    await client.replace({ resource: 'pods', namespace: 'default', name: 'p', subresource: 'status' }, { ...created, status: { phase: 'Running' } });
  });

  afterAll(async () => {
    streams?.close();
    await api?.close();
    await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
    await rm(dir, { recursive: true, force: true });
    await rm(podDir, { recursive: true, force: true });
  });

  it('runs a command, prints its output and exits with its exit code', async () => {
    const run = await kubectl('exec', 'p', '--', 'sh', '-c', 'echo hi; echo oops >&2; exit 3');
    expect(run.stdout).toBe('hi\n');
    expect(run.stderr).toContain('oops');
    expect(run.stderr).toContain('command terminated with exit code 3');
    expect(run.code).toBe(3);
    expect(streams.opened.at(-1)).toMatchObject({ kind: 'exec', container: 'c', command: ['sh', '-c', 'echo hi; echo oops >&2; exit 3'], stdin: false, tty: false });
  });

  it('passes stdin through with -i, to its end', async () => {
    const run = await withInput(['exec', '-i', 'p', '--', 'sh', '-c', 'cat; echo done'], 'hello from stdin\n');
    expect(run).toMatchObject({ code: 0, stdout: 'hello from stdin\ndone\n' });
  });

  it('attaches to the container\'s process, stdin included', async () => {
    const run = await withInput(['attach', '-i', 'p'], 'typed into the container\n');
    expect(run.stdout).toBe('typed into the container\n');
    expect(run.code).toBe(0);
    expect(streams.opened.at(-1)).toEqual({ kind: 'attach', container: 'c', stdin: true, stdout: true, stderr: true, tty: false });
  });

  it('copies a file into the pod and back out (tar over exec)', async () => {
    await writeFile(join(dir, 'in.txt'), 'copied through kubectl cp\n');
    const into = await kubectl('cp', join(dir, 'in.txt'), 'p:copied.txt');
    expect(into).toMatchObject({ code: 0 });
    expect(await readFile(join(podDir, 'copied.txt'), 'utf8')).toBe('copied through kubectl cp\n');
    const out = await kubectl('cp', 'p:copied.txt', join(dir, 'out.txt'));
    expect(out).toMatchObject({ code: 0 });
    expect(await readFile(join(dir, 'out.txt'), 'utf8')).toBe('copied through kubectl cp\n');
  });

  it('forwards a local port to the pod port', async () => {
    const forward = await portForward(80);
    try {
      expect(await roundTrip(forward.port, 'ping')).toBe('echo:ping');
      expect(await roundTrip(forward.port, 'again')).toBe('echo:again');
      expect(streams.opened.filter((r) => r.kind === 'portforward')).toEqual([{ kind: 'portforward', port: 80 }, { kind: 'portforward', port: 80 }]);
    } finally {
      forward.child.kill('SIGKILL');
    }
  });

  it('prints why a forwarded connection failed (the pod refused the port)', async () => {
    const forward = await portForward(81); // nothing listens behind it
    const local = createConnection(forward.port).on('error', () => {});
    try {
      local.write('ping');
      await vi.waitFor(() => expect(forward.stderr()).toContain(`an error occurred forwarding ${forward.port} -> 81: error forwarding port 81 to pod default/p, uid `), { timeout: 10_000 });
    } finally {
      local.destroy();
      forward.child.kill('SIGKILL');
    }
  });

  /** `kubectl port-forward pod/p :<remote>`, once it says which local port it listens on. */
  async function portForward(remote: number): Promise<{ port: number; child: ChildProcessWithoutNullStreams; stderr: () => string }> {
    const home = join(dir, 'admin');
    const child = spawn(KUBECTL, ['--cache-dir', join(home, 'kube-cache'), 'port-forward', 'pod/p', `:${remote}`], { env: { ...process.env, HOME: home, KUBECONFIG: adminConfig } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = new RegExp(`Forwarding from 127\\.0\\.0\\.1:(\\d+) -> ${remote}`).exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`kubectl port-forward exited ${code}: ${err}`)));
    });
    return { port, child, stderr: () => err };
  }

  it('refuses a viewer: exec needs create on pods/exec', async () => {
    const run = await asViewer('exec', 'p', '--', 'true');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error from server (Forbidden): pods "p" is forbidden: User "viewer" cannot create resource "pods/exec" in API group "" in the namespace "default"');
  });

  it('prints why the stream could not open (a node away) and fails', async () => {
    streams.refuse = new KedgeError('Unavailable', 'node "edge-1" is unreachable since 2026-12-02T20:00:00Z (5m ago): cannot exec into pod default/p');
    try {
      const run = await kubectl('exec', 'p', '--', 'true');
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('node "edge-1" is unreachable since 2026-12-02T20:00:00Z (5m ago): cannot exec into pod default/p');
    } finally {
      streams.refuse = undefined;
    }
  });

  it('says what it speaks to a client that speaks only SPDY', async () => {
    const run = await withInput(['exec', 'p', '--', 'true'], '', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('speaks only WebSocket with subprotocol v5.channel.k8s.io');
  });

  function withInput(args: string[], input: string, env: Record<string, string> = {}): Promise<Run> {
    return new Promise((resolve) => {
      const home = join(dir, 'admin');
      const child = spawn(KUBECTL, ['--cache-dir', join(home, 'kube-cache'), ...args], { env: { ...process.env, HOME: home, KUBECONFIG: adminConfig, ...env }, timeout: 20_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('close', (code) => {
        resolve({ code: code ?? 1, stdout, stderr });
      });
      child.stdin.end(input);
    });
  }
});

/** Sends `text` over a fresh connection and reads the first answer. */
function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(port);
    socket.once('data', (d: Buffer) => {
      resolve(d.toString());
      socket.end();
    });
    socket.once('error', reject);
    socket.write(text);
  });
}


