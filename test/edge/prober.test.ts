import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Prober } from '../../edge/prober/prober.js';
import type { ContainerInfo, ExecResult, ProbeKind } from '../../edge/runtime/runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Container, Pod } from '../../shared/types.js';
import { container, pod, sandbox } from './fixtures.js';

const S = 1000;

/** A runtime whose containers answer probes as `answers` says (undefined: probe for real); `calls` records them as "kind@seconds". */
class ProbeAnswers {
  readonly answers = new Map<ProbeKind, boolean | undefined>();
  readonly calls: string[] = [];
  constructor(private readonly clock: FakeClock) {}
  exec(): Promise<ExecResult> {
    return Promise.reject(new Error('not used'));
  }
  async simulatedProbe(_id: string, kind: ProbeKind): Promise<boolean | undefined> {
    this.calls.push(`${kind}@${(this.clock.now() - T0) / S}`);
    return this.answers.get(kind);
  }
}

const T0 = Date.UTC(2026, 0, 1);
const withProbes = (spec: Partial<Container>): Pod => pod('p', 'u1', { containers: [{ name: 'app', image: 'nginx:1.27', ...spec }] });
const running = (fields: Partial<ContainerInfo> = {}): ContainerInfo => container('u1', { startedAt: T0, createdAt: T0, ...fields });

describe('Prober', () => {
  let clock: FakeClock;
  let runtime: ProbeAnswers;
  let changes: number;
  let prober: Prober;
  const start = (p: Pod, c = running(), timeScale = 1) => {
    prober = new Prober({ runtime, clock, timing: { timeScale }, logger: silentLogger, onChange: () => changes++ });
    prober.update([p], { sandboxes: [sandbox('u1')], containers: [c] });
  };
  const status = () => prober.statuses().get('c-u1-app-0');

  beforeEach(() => {
    clock = new FakeClock(T0);
    runtime = new ProbeAnswers(clock);
    changes = 0;
  });
  afterEach(() => prober?.stop());

  it('readiness: first probe after initialDelaySeconds, then every periodSeconds; ready after one success', async () => {
    runtime.answers.set('readiness', true);
    start(withProbes({ readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 5, periodSeconds: 10 } }));
    expect(status()).toEqual({ ready: false });
    await clock.advance(4999);
    expect(runtime.calls).toEqual([]);
    await clock.advance(1);
    expect(status()).toEqual({ ready: true });
    expect(changes).toBe(1);
    await clock.advance(20 * S);
    expect(runtime.calls).toEqual(['readiness@5', 'readiness@15', 'readiness@25']);
    expect(changes).toBe(1); // unchanged results call no one
  });

  it('readiness: not ready after failureThreshold failures in a row, ready again after successThreshold successes', async () => {
    runtime.answers.set('readiness', true);
    start(withProbes({ readinessProbe: { httpGet: { port: 80 }, periodSeconds: 1, failureThreshold: 2, successThreshold: 2 } }));
    await clock.advance(1 * S); // probed at 0 and 1: ready
    expect(status()!.ready).toBe(true);
    runtime.answers.set('readiness', false);
    await clock.advance(1 * S);
    expect(status()!.ready).toBe(true); // 1 failure
    await clock.advance(1 * S);
    expect(status()!.ready).toBe(false); // 2 failures
    runtime.answers.set('readiness', true);
    await clock.advance(1 * S);
    expect(status()!.ready).toBe(false); // 1 success
    await clock.advance(1 * S);
    expect(status()!.ready).toBe(true);
    expect(changes).toBe(3);
  });

  it('periods and delays are divided by the time scale', async () => {
    runtime.answers.set('liveness', true);
    start(withProbes({ livenessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 10, periodSeconds: 10 } }), running(), 10);
    await clock.advance(3 * S);
    expect(runtime.calls).toEqual(['liveness@1', 'liveness@2', 'liveness@3']);
  });

  it('liveness: unhealthy after exactly failureThreshold failures, then probed no more', async () => {
    runtime.answers.set('liveness', false);
    start(withProbes({ livenessProbe: { tcpSocket: { port: 80 }, periodSeconds: 10, failureThreshold: 3 } }));
    expect(status()).toEqual({});
    await clock.advance(10 * S);
    expect(status()).toEqual({}); // 2 failures
    expect(changes).toBe(0);
    await clock.advance(10 * S);
    expect(status()).toEqual({ unhealthy: 'Liveness probe failed: the simulated container failed the probe' });
    expect(changes).toBe(1);
    await clock.advance(60 * S);
    expect(runtime.calls).toEqual(['liveness@0', 'liveness@10', 'liveness@20']);
  });

  it('startup: holds back liveness and readiness until it succeeds, then readiness is asked at once', async () => {
    runtime.answers.set('startup', false);
    runtime.answers.set('readiness', true);
    runtime.answers.set('liveness', true);
    const probe = { httpGet: { port: 80 }, periodSeconds: 5 };
    start(withProbes({ startupProbe: { ...probe, failureThreshold: 30 }, livenessProbe: probe, readinessProbe: { ...probe, periodSeconds: 10 } }));
    await clock.advance(12 * S);
    expect(runtime.calls).toEqual(['startup@0', 'startup@5', 'startup@10']);
    expect(status()).toEqual({ started: false, ready: false });
    runtime.answers.set('startup', true);
    await clock.advance(3 * S);
    expect(runtime.calls.slice(3)).toEqual(['startup@15', 'readiness@15', 'liveness@15']);
    expect(status()).toEqual({ started: true, ready: true });
    await clock.advance(10 * S);
    expect(runtime.calls.slice(6)).toEqual(['liveness@20', 'readiness@25', 'liveness@25']);
  });

  it('startup: unhealthy after failureThreshold failures', async () => {
    runtime.answers.set('startup', false);
    start(withProbes({ startupProbe: { exec: { command: ['true'] }, periodSeconds: 1, failureThreshold: 3 }, livenessProbe: { exec: { command: ['true'] } } }));
    await clock.advance(2 * S);
    expect(status()).toEqual({ started: false, unhealthy: 'Startup probe failed: the simulated container failed the probe' });
    expect(runtime.calls).toEqual(['startup@0', 'startup@1', 'startup@2']);
  });

  it('initialDelaySeconds counts from when the container started: one running for long is probed at once', async () => {
    runtime.answers.set('readiness', true);
    await clock.advance(60 * S);
    start(withProbes({ readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 30 } }));
    await clock.advance(0);
    expect(runtime.calls).toEqual(['readiness@60']);
  });

  it('an adopted container keeps the readiness it last reported until a probe says otherwise', async () => {
    const p = withProbes({ readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 30 } });
    p.status = { containerStatuses: [{ name: 'app', ready: true, started: true, restartCount: 0, image: '', imageID: '', containerID: 'sim://c-u1-app-0', state: { running: {} }, lastState: {} }] };
    start(p);
    expect(status()).toEqual({ ready: true });
    start(p, running({ id: 'other' }));
    expect(prober.statuses().get('other')).toEqual({ ready: false });
  });

  it('drops the workers of a container that exited or is gone', async () => {
    runtime.answers.set('readiness', true);
    start(withProbes({ readinessProbe: { httpGet: { port: 80 } } }));
    await clock.advance(0);
    prober.update([withProbes({ readinessProbe: { httpGet: { port: 80 } } })], { sandboxes: [sandbox('u1')], containers: [running({ state: 'exited' })] });
    expect(prober.statuses().size).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('stop cancels every timer', async () => {
    start(withProbes({ readinessProbe: { httpGet: { port: 80 } }, livenessProbe: { httpGet: { port: 80 } } }));
    prober.stop();
    expect(clock.pending).toBe(0);
  });

  describe('a runtime whose probes are real', () => {
    let server: Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    });

    it('probes the pod IP over TCP', async () => {
      server = createServer((socket) => socket.end());
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
      const { port } = server.address() as AddressInfo;
      const changed = new Promise<void>((resolve) => {
        prober = new Prober({ runtime, clock, timing: { timeScale: 1 }, logger: silentLogger, onChange: resolve });
      });
      const p = withProbes({ readinessProbe: { tcpSocket: { port: 'tcp' } }, ports: [{ name: 'tcp', containerPort: port }] });
      prober.update([p], { sandboxes: [{ ...sandbox('u1'), ip: '127.0.0.1' }], containers: [running()] });
      await clock.advance(0);
      await changed;
      expect(status()).toEqual({ ready: true });
    });
  });
});
