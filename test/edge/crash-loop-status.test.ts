import { describe, expect, it } from 'vitest';
import { podStatusReason } from '../../cloud/apiserver/kinds/printers.js';
import { derivePodStatus, type PodStatusInput } from '../../edge/edged/pod-status.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import type { Pod } from '../../shared/types.js';
import { container, pod, statusInput } from './fixtures.js';

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const input = (fields: Partial<PodStatusInput>): PodStatusInput => statusInput(T0, fields);
const crashed = (name: string, attempt: number, createdAt: number, exitCode = 1): ContainerInfo =>
  container('u1', { name, attempt, createdAt, startedAt: createdAt + 200, finishedAt: createdAt + 1200, state: 'exited', exitCode, reason: exitCode ? 'Error' : 'Completed', ready: false });

describe('CrashLoopBackOff in the pod status', () => {
  // Attempt 0 ended at T0 - 10 s, attempt 1 was created right then and ended at T0: a 20 s back-off.
  const containers = [crashed('app', 0, T0 - 12_400), crashed('app', 1, T0 - 1200)];

  it('while it waits: waiting CrashLoopBackOff (kubelet wording), lastState.terminated, restartCount', () => {
    const s = derivePodStatus(input({ containers, now: T0 + 19_999 }));
    const c = s.containerStatuses![0]!;
    expect(c.state).toEqual({ waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s restarting failed container=app pod=p_default(u1)' } });
    expect(c.lastState).toEqual({ terminated: { exitCode: 1, reason: 'Error', startedAt: iso(T0 - 1000), finishedAt: iso(T0) } });
    expect(c.restartCount).toBe(1);
    expect(c.ready).toBe(false);
    expect(s.phase).toBe('Running');
    expect(podStatusReason({ ...pod('p', 'u1'), status: s })).toBe('CrashLoopBackOff');
  });

  it('the back-off follows the time scale, the message keeps real seconds', () => {
    const scaled = [crashed('app', 0, T0 - 3400), crashed('app', 1, T0 - 1200)];
    const s = derivePodStatus(input({ containers: scaled, now: T0 + 1999, timing: { timeScale: 10 } }));
    expect(s.containerStatuses![0]!.state.waiting?.message).toMatch(/^back-off 20s /);
    const over = derivePodStatus(input({ containers: scaled, now: T0 + 2000, timing: { timeScale: 10 } }));
    expect(over.containerStatuses![0]!.state.terminated?.exitCode).toBe(1);
  });

  it('after its first exit: terminated with restartCount 0, no CrashLoopBackOff (it runs again at once, as under the kubelet)', () => {
    const s = derivePodStatus(input({ containers: [crashed('app', 0, T0 - 1200)], now: T0 + 1 }));
    const c = s.containerStatuses![0]!;
    expect(c.state.terminated?.reason).toBe('Error');
    expect(c.restartCount).toBe(0);
    expect(podStatusReason({ ...pod('p', 'u1'), status: s })).toBe('Error');
  });

  it('Never: terminated, not backing off', () => {
    const s = derivePodStatus(input({ pod: pod('p', 'u1', { restartPolicy: 'Never' }), containers: [crashed('app', 0, T0 - 1200)], now: T0 + 1 }));
    expect(s.containerStatuses![0]!.state.terminated?.reason).toBe('Error');
    expect(s.phase).toBe('Failed');
  });
});

describe('init containers in the pod status', () => {
  const withInit = (restartPolicy: Pod['spec']['restartPolicy'] = 'Always'): Pod =>
    pod('p', 'u1', { restartPolicy, initContainers: [{ name: 'one', image: 'busybox' }, { name: 'two', image: 'busybox' }] });
  const statusOf = (containers: ContainerInfo[], p = withInit(), now = T0 + 1) => {
    const status = derivePodStatus(input({ pod: p, containers, now }));
    return { status, column: podStatusReason({ ...p, status }), initialized: status.conditions!.find((c) => c.type === 'Initialized')! };
  };

  it('the first one running: Init:0/2, Pending, Initialized false, app waiting PodInitializing', () => {
    const { status, column, initialized } = statusOf([container('u1', { name: 'one' })]);
    expect(column).toBe('Init:0/2');
    expect(status.phase).toBe('Pending');
    expect(initialized).toMatchObject({ status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [one two]' });
    expect(status.initContainerStatuses!.map((c) => Object.keys(c.state)[0])).toEqual(['running', 'waiting']);
    expect(status.containerStatuses![0]!.state).toEqual({ waiting: { reason: 'PodInitializing' } });
  });

  it('the first completed: Init:1/2, and it counts as ready', () => {
    const { status, column, initialized } = statusOf([crashed('one', 0, T0 - 1200, 0), container('u1', { name: 'two' })]);
    expect(column).toBe('Init:1/2');
    expect(initialized.message).toBe('containers with incomplete status: [two]');
    expect(status.initContainerStatuses![0]).toMatchObject({ ready: true, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
  });

  it('a failed one: Init:Error until it runs again at once; failed again, backing off: Init:CrashLoopBackOff, its end in lastState', () => {
    expect(statusOf([crashed('one', 0, T0 - 1200)]).column).toBe('Init:Error');
    const { status, column } = statusOf([crashed('one', 0, T0 - 2400), crashed('one', 1, T0 - 1200)]);
    expect(column).toBe('Init:CrashLoopBackOff');
    expect(status.initContainerStatuses![0]!.lastState.terminated?.exitCode).toBe(1);
  });

  it('Never: Init:Error and the pod Failed', () => {
    const { status, column } = statusOf([crashed('one', 0, T0 - 1200)], withInit('Never'));
    expect(column).toBe('Init:Error');
    expect(status.phase).toBe('Failed');
  });

  it('all completed and the app running: Initialized, Running', () => {
    const { status, column, initialized } = statusOf([crashed('one', 0, T0 - 3000, 0), crashed('two', 0, T0 - 1500, 0), container('u1')]);
    expect(initialized.status).toBe('True');
    expect(status.phase).toBe('Running');
    expect(column).toBe('Running');
  });
});
