import { describe, expect, it } from 'vitest';
import { derivePodStatus } from '../../edge/edged/pod-status.js';
import type { ContainerProbeStatus } from '../../edge/prober/probe-status.js';
import type { Container } from '../../shared/types.js';
import { container, pod, statusInput } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 10);
const probe = { httpGet: { port: 80 } };

describe('derivePodStatus with probes', () => {
  const cases: { name: string; spec: Partial<Container>; says?: ContainerProbeStatus; runtimeReady?: boolean; started: boolean; ready: boolean }[] = [
    { name: 'no probes: ready once running', spec: {}, started: true, ready: true },
    { name: 'readiness probe not answered yet: not ready', spec: { readinessProbe: probe }, started: true, ready: false },
    { name: 'readiness probe says not ready', spec: { readinessProbe: probe }, says: { ready: false }, started: true, ready: false },
    { name: 'readiness probe says ready', spec: { readinessProbe: probe }, says: { ready: true }, started: true, ready: true },
    { name: 'probe ready but the runtime says not ready', spec: { readinessProbe: probe }, says: { ready: true }, runtimeReady: false, started: true, ready: false },
    { name: 'startup probe not yet succeeded: not started, not ready', spec: { startupProbe: probe }, says: { started: false }, started: false, ready: false },
    { name: 'startup probe succeeded, no readiness probe: ready', spec: { startupProbe: probe }, says: { started: true }, started: true, ready: true },
    { name: 'startup probe holds back a ready readiness result', spec: { startupProbe: probe, readinessProbe: probe }, says: { started: false, ready: true }, started: false, ready: false },
    { name: 'liveness probe alone changes nothing', spec: { livenessProbe: probe }, says: {}, started: true, ready: true },
  ];

  it.each(cases)('$name', ({ spec, says, runtimeReady, started, ready }) => {
    const p = pod('p', 'u1', { containers: [{ name: 'app', image: 'nginx:1.27', ...spec }] });
    const c = container('u1', { ready: runtimeReady ?? true });
    const s = derivePodStatus(statusInput(NOW, { pod: p, containers: [c], probes: new Map(says ? [[c.id, says]] : []) }));
    expect(s.containerStatuses![0]).toMatchObject({ started, ready });
    const conditions = Object.fromEntries(s.conditions!.map((x) => [x.type, x.status]));
    expect(conditions).toMatchObject({ Ready: ready ? 'True' : 'False', ContainersReady: ready ? 'True' : 'False' });
  });

  it('an exited container is neither started nor ready, whatever the probes said', () => {
    const p = pod('p', 'u1', { containers: [{ name: 'app', image: 'nginx:1.27', readinessProbe: probe }] });
    const c = container('u1', { state: 'exited', exitCode: 1, finishedAt: 5 });
    const s = derivePodStatus(statusInput(NOW, { pod: p, containers: [c], probes: new Map([[c.id, { ready: true }]]) }));
    expect(s.containerStatuses![0]).toMatchObject({ started: false, ready: false });
  });
});
