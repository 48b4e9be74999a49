import { describe, expect, it } from 'vitest';
import { ContainerWaits } from '../../edge/edged/container-waits.js';
import { derivePodStatus } from '../../edge/edged/pod-status.js';
import { container, statusInput } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 10);
const mounts = [{ name: 'cfg', containerPath: '/etc/cfg', hostPath: '/d/pods/u1/volumes/kubernetes.io~configmap/cfg', readOnly: true }, { name: 'tmp', containerPath: '/tmp', hostPath: '/d/x', readOnly: false }];

describe('container waits and mounts in the pod status', () => {
  it('a config error shows as CreateContainerConfigError until a start succeeds; a running container as the runtime says', () => {
    const waits = new ContainerWaits();
    waits.configResult('u1', 'app', 'configmap "settings" not found');
    const waiting = waits.waitingOf('u1', undefined);
    expect(derivePodStatus(statusInput(NOW, { waiting })).containerStatuses![0]!.state).toEqual({ waiting: { reason: 'CreateContainerConfigError', message: 'configmap "settings" not found' } });
    // A restart that failed: waiting, the last run in lastState.
    const exited = container('u1', { state: 'exited', exitCode: 1, finishedAt: 0, reason: 'Error' });
    const restarting = derivePodStatus(statusInput(NOW + 600_000, { containers: [exited], waiting })).containerStatuses![0]!;
    expect(restarting.state.waiting?.reason).toBe('CreateContainerConfigError');
    expect(derivePodStatus(statusInput(NOW, { containers: [container('u1')], waiting })).containerStatuses![0]!.state.running).toBeDefined();
    waits.configResult('u1', 'app', undefined);
    expect(derivePodStatus(statusInput(NOW, { waiting: waits.waitingOf('u1', undefined) })).containerStatuses![0]!.state).toEqual({ waiting: { reason: 'ContainerCreating' } });
  });

  it('volumes not set up: ContainerCreating with the mount error; forgotten pods lose their errors', () => {
    const waits = new ContainerWaits();
    const s = derivePodStatus(statusInput(NOW, { sandbox: undefined, waiting: waits.waitingOf('u1', { ready: false, error: 'MountVolume.SetUp failed for volume "cfg" : configmap "x" not found' }) }));
    expect(s.containerStatuses![0]!.state).toEqual({ waiting: { reason: 'ContainerCreating', message: 'MountVolume.SetUp failed for volume "cfg" : configmap "x" not found' } });
    waits.configResult('u1', 'app', 'boom');
    waits.keepOnly(new Set(['u2']));
    expect(waits.waitingOf('u1', undefined)('app')).toBeUndefined();
  });

  it('reports the mounts of the container as VolumeMountStatus (readOnly only when true)', () => {
    const s = derivePodStatus(statusInput(NOW, { containers: [container('u1', { mounts })] }));
    expect(s.containerStatuses![0]!.volumeMounts).toEqual([{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }, { name: 'tmp', mountPath: '/tmp' }]);
    expect(derivePodStatus(statusInput(NOW, { containers: [container('u1')] })).containerStatuses![0]!.volumeMounts).toBeUndefined();
  });
});
