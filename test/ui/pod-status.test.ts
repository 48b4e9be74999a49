import { describe, expect, it } from 'vitest';
import type { ContainerStatus, Pod } from '../../ui/model/kube.js';
import { kubectlReady, kubectlStatus } from '../../ui/model/pod-status.js';

const running = (name: string, ready = true): ContainerStatus => ({ name, ready, restartCount: 0, state: { running: {} } });
const terminated = (name: string, exitCode: number, reason?: string): ContainerStatus => ({ name, ready: false, restartCount: 0, state: { terminated: { exitCode, ...(reason ? { reason } : {}) } } });
const pod = (status: Pod['status'], extra: Partial<Pod> = {}): Pod => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }, { name: 'b' }], initContainers: [{ name: 'i' }] }, status, ...extra });

describe("kubectl get pods' STATUS and READY columns", () => {
  it('is the phase while the containers run, whatever the Ready condition says', () => {
    const p = pod({ phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'False' }], containerStatuses: [running('a'), running('b')] });
    expect([kubectlReady(p), kubectlStatus(p)]).toEqual(['2/2', 'Running']);
  });

  it("shows a container's waiting or terminated reason, or its exit code", () => {
    const waiting: ContainerStatus = { name: 'b', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } };
    const initialized = { type: 'Initialized', status: 'True' };
    expect(kubectlStatus(pod({ phase: 'Running', conditions: [initialized], containerStatuses: [running('a'), waiting] }))).toBe('CrashLoopBackOff');
    expect(kubectlStatus(pod({ phase: 'Failed', conditions: [initialized], containerStatuses: [terminated('a', 137)] }))).toBe('ExitCode:137');
    expect(kubectlReady(pod({ phase: 'Running', conditions: [initialized], containerStatuses: [running('a'), waiting] }))).toBe('1/2');
  });

  it('says Running or NotReady for a Completed container beside a running one, by the Ready condition', () => {
    const statuses = [running('a'), terminated('b', 0, 'Completed')];
    expect(kubectlStatus(pod({ phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }], containerStatuses: statuses }))).toBe('Running');
    expect(kubectlStatus(pod({ phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'False' }], containerStatuses: statuses }))).toBe('NotReady');
  });

  it('shows init containers at work or in trouble', () => {
    const waiting = (reason: string): ContainerStatus => ({ name: 'i', ready: false, restartCount: 0, state: { waiting: { reason } } });
    expect(kubectlStatus(pod({ phase: 'Pending', initContainerStatuses: [waiting('PodInitializing')] }))).toBe('Init:0/1');
    expect(kubectlStatus(pod({ phase: 'Pending', initContainerStatuses: [waiting('CrashLoopBackOff')] }))).toBe('Init:CrashLoopBackOff');
    expect(kubectlStatus(pod({ phase: 'Pending', initContainerStatuses: [terminated('i', 1)] }))).toBe('Init:ExitCode:1');
    expect(kubectlStatus(pod({ phase: 'Pending', initContainerStatuses: [terminated('i', 0)] }))).toBe('Pending');
  });

  it('is Terminating once deleted (Unknown for a pod of a lost node)', () => {
    const deleted = { name: 'p', deletionTimestamp: '2025-01-01T00:00:00Z' };
    expect(kubectlStatus(pod({ phase: 'Running', containerStatuses: [running('a')] }, { metadata: deleted }))).toBe('Terminating');
    expect(kubectlStatus(pod({ phase: 'Running', reason: 'NodeLost' }, { metadata: deleted }))).toBe('Unknown');
  });
});
