import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { resolvePort, runProbeAction, type ProbeContext, type ProbeTarget } from '../../edge/prober/probe-actions.js';
import type { ExecResult } from '../../edge/runtime/runtime.js';
import { generateServingCert } from '../../cloud/apiserver/auth/tls-cert.js';
import { FakeClock, realClock, type Clock } from '../../shared/clock.js';
import type { Probe } from '../../shared/types.js';
import { freePort } from '../support/free-port.js';

type Listening = Server | ReturnType<typeof createTcpServer>;
const servers: Listening[] = [];

async function listen<T extends Listening>(server: T): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** An HTTP server answering `status`; `seen` collects the requests it got. */
async function httpServer(status: number, seen: IncomingMessage[] = []): Promise<number> {
  return listen(createServer((req, res) => {
    seen.push(req);
    res.writeHead(status, status === 302 ? { location: 'http://elsewhere.invalid/' } : {}).end('body');
  }));
}

const target = (ports: ProbeTarget['ports'] = []): ProbeTarget => ({ containerId: 'c1', podIP: '127.0.0.1', ports });
const noExec = { exec: (): Promise<ExecResult> => Promise.reject(new Error('no exec')) };
const context = (clock: Clock = realClock, runtime: ProbeContext['runtime'] = noExec): ProbeContext => ({ runtime, clock, timeoutMs: 1000 });
/** A clock whose timers fire before any I/O can: every timeout is already over. */
const expiredClock: Clock = { ...realClock, setTimer: (_ms, fn) => (queueMicrotask(fn), () => {}) };

afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

describe('httpGet probe', () => {
  it.each([
    [200, 'success'],
    [204, 'success'],
    [302, 'success'],
    [399, 'success'],
    [400, 'failure'],
    [500, 'failure'],
  ] as const)('status %d: %s', async (status, result) => {
    const port = await httpServer(status);
    expect((await runProbeAction({ httpGet: { port } }, target(), context())).result).toBe(result);
  });

  it('says which status failed', async () => {
    const port = await httpServer(503);
    expect(await runProbeAction({ httpGet: { port } }, target(), context())).toEqual({ result: 'failure', message: 'HTTP probe failed with statuscode: 503' });
  });

  it('goes to the pod IP by default, with the path, headers and a named port', async () => {
    const seen: IncomingMessage[] = [];
    const port = await httpServer(200, seen);
    const probe: Probe = { httpGet: { port: 'web', path: 'healthz?deep=1', httpHeaders: [{ name: 'X-Check', value: 'yes' }] } };
    const outcome = await runProbeAction(probe, target([{ name: 'web', containerPort: port }]), context());
    expect(outcome.result).toBe('success');
    expect(seen[0]!.url).toBe('/healthz?deep=1');
    expect(seen[0]!.headers).toMatchObject({ 'x-check': 'yes', 'user-agent': 'kube-probe/1.32', host: `127.0.0.1:${port}` });
  });

  it('HTTPS without checking the certificate', async () => {
    const { certPem, keyPem } = generateServingCert({ commonName: 'elsewhere', hosts: ['elsewhere.invalid'], now: realClock.now() });
    const port = await listen(createHttpsServer({ cert: certPem, key: keyPem }, (_req: IncomingMessage, res: ServerResponse) => res.end('ok')));
    expect((await runProbeAction({ httpGet: { port, scheme: 'HTTPS', host: '127.0.0.1' } }, target(), context())).result).toBe('success');
  });

  it('a closed port fails', async () => {
    const port = await freePort();
    const outcome = await runProbeAction({ httpGet: { port } }, target(), context());
    expect(outcome.result).toBe('failure');
    expect(outcome.message).toContain('ECONNREFUSED');
  });

  it('a server that does not answer within timeoutSeconds fails', async () => {
    const port = await listen(createServer(() => {})); // never answers
    const clock = new FakeClock();
    const pending = runProbeAction({ httpGet: { port } }, target(), context(clock));
    await clock.advance(999);
    let settled = false;
    void pending.then(() => (settled = true));
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    expect(await pending).toEqual({ result: 'failure', message: `Get "http://127.0.0.1:${port}/": no answer within 1s` });
  });

  it('an unknown port name is an error (not counted), not a failure', async () => {
    expect(await runProbeAction({ httpGet: { port: 'nope' } }, target(), context())).toEqual({ result: 'error', message: 'no container port named "nope"' });
  });
});

describe('tcpSocket probe', () => {
  it('an open port succeeds', async () => {
    const port = await listen(createTcpServer((socket) => socket.end()));
    expect((await runProbeAction({ tcpSocket: { port } }, target(), context())).result).toBe('success');
  });

  it('a closed port fails', async () => {
    const port = await freePort();
    const outcome = await runProbeAction({ tcpSocket: { port, host: '127.0.0.1' } }, target(), context());
    expect(outcome.result).toBe('failure');
    expect(outcome.message).toMatch(new RegExp(`^dial tcp 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
  });

  it('no connection within timeoutSeconds fails', async () => {
    const port = await listen(createTcpServer((socket) => socket.end()));
    expect(await runProbeAction({ tcpSocket: { port } }, target(), context(expiredClock))).toEqual({ result: 'failure', message: `dial tcp 127.0.0.1:${port}: no connection within 1s` });
  });
});

describe('exec probe', () => {
  const runtime = (result: ExecResult | Error | 'hang') => ({
    calls: [] as unknown[][],
    exec(...args: unknown[]): Promise<ExecResult> {
      this.calls.push(args);
      if (result === 'hang') return new Promise(() => {});
      return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
    },
  });

  it('exit code 0 succeeds; the command and timeout go to the runtime', async () => {
    const r = runtime({ exitCode: 0, output: 'fine\n', timedOut: false });
    expect(await runProbeAction({ exec: { command: ['cat', '/tmp/healthy'] } }, target(), context(realClock, r))).toEqual({ result: 'success', message: 'fine' });
    expect(r.calls).toEqual([['c1', ['cat', '/tmp/healthy'], 1000]]);
  });

  it('another exit code fails, with the output', async () => {
    const r = runtime({ exitCode: 1, output: 'cat: /tmp/healthy: No such file or directory\n', timedOut: false });
    expect(await runProbeAction({ exec: { command: ['cat', '/tmp/healthy'] } }, target(), context(realClock, r))).toEqual({
      result: 'failure',
      message: 'command exited with code 1: cat: /tmp/healthy: No such file or directory',
    });
  });

  it('a command the runtime timed out fails', async () => {
    const r = runtime({ exitCode: 137, output: '', timedOut: true });
    expect(await runProbeAction({ exec: { command: ['sleep', '9'] } }, target(), context(realClock, r))).toEqual({ result: 'failure', message: 'command timed out after 1s' });
  });

  it('a runtime that does not answer within the timeout fails too', async () => {
    const clock = new FakeClock();
    const pending = runProbeAction({ exec: { command: ['sleep', '9'] } }, target(), context(clock, runtime('hang')));
    await clock.advance(1000);
    expect((await pending).result).toBe('failure');
  });

  it('a runtime that cannot exec is an error', async () => {
    expect(await runProbeAction({ exec: { command: ['true'] } }, target(), context(realClock, runtime(new Error('container not running'))))).toEqual({ result: 'error', message: 'container not running' });
  });
});

describe('resolvePort', () => {
  const ports = [{ name: 'http', containerPort: 8080 }];
  it.each([
    [8080, 8080],
    ['http', 8080],
    ['9090', 9090],
  ] as const)('%s → %d', (port, expected) => {
    expect(resolvePort(port, ports)).toBe(expected);
  });
  it.each([0, 70000, 1.5])('rejects %s', (port) => {
    expect(() => resolvePort(port, ports)).toThrow(`invalid port number: ${port}`);
  });
});
