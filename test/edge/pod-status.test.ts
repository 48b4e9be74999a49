import { describe, expect, it } from 'vitest';
import { derivePodStatus, type PodStatusInput } from '../../edge/edged/pod-status.js';
import type { PodStatus } from '../../shared/types.js';
import { container, pod, statusInput } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 10);
const input = (fields: Partial<PodStatusInput>): PodStatusInput => statusInput(NOW, fields);
const conditionsOf = (s: PodStatus) => Object.fromEntries((s.conditions ?? []).map((c) => [c.type, c.status]));

describe('derivePodStatus', () => {
  it('no sandbox yet: Pending, container waiting ContainerCreating', () => {
    const s = derivePodStatus(input({ sandbox: undefined }));
    expect(s.phase).toBe('Pending');
    expect(s.podIP).toBeUndefined();
    expect(s.containerStatuses?.[0]).toMatchObject({ name: 'app', ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } });
  });

  it('created container: still Pending, sandbox ready', () => {
    const s = derivePodStatus(input({ containers: [container('u1', { state: 'created', startedAt: undefined, ready: false })] }));
    expect(s.phase).toBe('Pending');
    expect(conditionsOf(s)).toMatchObject({ PodReadyToStartContainers: 'True', Initialized: 'True', Ready: 'False', ContainersReady: 'False', PodScheduled: 'True' });
    expect(s.podIP).toBe('10.244.1.2');
    expect(s.podIPs).toEqual([{ ip: '10.244.1.2' }]);
    expect(s.hostIP).toBe('127.0.0.1');
  });

  it('running and ready: Running, Ready, containerID sim://', () => {
    const s = derivePodStatus(input({ containers: [container('u1')] }));
    expect(s.phase).toBe('Running');
    expect(conditionsOf(s)).toMatchObject({ Ready: 'True', ContainersReady: 'True' });
    const c = s.containerStatuses![0]!;
    expect(c).toMatchObject({ ready: true, started: true, image: 'nginx:1.27', containerID: 'sim://c-u1-app-0', state: { running: { startedAt: new Date(0).toISOString() } }, lastState: {} });
    expect(c.imageID).toMatch(/^nginx:1.27@sha256:[0-9a-f]{64}$/);
  });

  it('running but not ready yet: Running, not Ready', () => {
    const s = derivePodStatus(input({ containers: [container('u1', { ready: false })] }));
    expect(s.phase).toBe('Running');
    const ready = s.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
  });

  it('restarted container: restartCount and lastState from the previous attempt', () => {
    const first = container('u1', { state: 'exited', exitCode: 2, reason: 'Error', finishedAt: 5 });
    const s = derivePodStatus(input({ containers: [first, container('u1', { attempt: 1 })] }));
    expect(s.containerStatuses![0]).toMatchObject({ restartCount: 1, lastState: { terminated: { exitCode: 2, reason: 'Error' } }, state: { running: {} } });
  });

  it.each([
    ['Never', 0, 'Succeeded'],
    ['Never', 3, 'Failed'],
    ['OnFailure', 0, 'Succeeded'],
    ['Always', 0, 'Running'],
  ] as const)('restartPolicy %s, exit %d: %s', (restartPolicy, exitCode, phase) => {
    const s = derivePodStatus(input({ pod: pod('p', 'u1', { restartPolicy }), containers: [container('u1', { state: 'exited', exitCode, ready: false })] }));
    expect(s.phase).toBe(phase);
  });

  it('keeps lastTransitionTime and startTime while nothing changes (so statuses compare equal)', () => {
    const first = derivePodStatus(input({ containers: [container('u1')] }));
    const again = derivePodStatus(input({ pod: { ...pod('p', 'u1'), status: first }, containers: [container('u1')], now: NOW + 60_000 }));
    expect(again).toEqual(first);
    const unready = derivePodStatus(input({ pod: { ...pod('p', 'u1'), status: first }, containers: [container('u1', { ready: false })], now: NOW + 60_000 }));
    expect(unready.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime).toBe(new Date(NOW + 60_000).toISOString());
    expect(unready.conditions!.find((c) => c.type === 'PodScheduled')!.lastTransitionTime).toBe(new Date(NOW).toISOString());
  });

  it('after a reboot, lastState is how the lost container last showed; kept while the new one runs', () => {
    const before = derivePodStatus(input({ containers: [container('u1', { id: 'old', startedAt: 5 })] }));
    const rebooted = { ...pod('p', 'u1'), status: before };
    const starting = derivePodStatus(input({ pod: rebooted, containers: [container('u1', { id: 'new', attempt: 1, state: 'created', startedAt: undefined, ready: false })] }));
    expect(starting.containerStatuses![0]).toMatchObject({
      restartCount: 1,
      containerID: 'sim://new',
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: { terminated: { exitCode: 255, reason: 'Unknown', startedAt: new Date(5).toISOString() } },
    });
    const running = derivePodStatus(input({ pod: { ...rebooted, status: starting }, containers: [container('u1', { id: 'new', attempt: 1 })] }));
    expect(running.containerStatuses![0]!.lastState).toEqual(starting.containerStatuses![0]!.lastState);
  });

  it('after a reboot, an exited container\'s end is the lastState', () => {
    const ended = derivePodStatus(input({ containers: [container('u1', { id: 'old', state: 'exited', exitCode: 3, reason: 'Error', finishedAt: 9 })] }));
    const s = derivePodStatus(input({ pod: { ...pod('p', 'u1'), status: ended }, containers: [container('u1', { id: 'new', attempt: 1 })] }));
    expect(s.containerStatuses![0]!.lastState).toEqual({ terminated: ended.containerStatuses![0]!.state.terminated });
  });

  it('a first attempt has no lastState, whatever the cached status says', () => {
    const other = derivePodStatus(input({ containers: [container('u1', { id: 'old' })] }));
    const s = derivePodStatus(input({ pod: { ...pod('p', 'u1'), status: other }, containers: [container('u1', { id: 'new' })] }));
    expect(s.containerStatuses![0]!.lastState).toEqual({});
  });
});
