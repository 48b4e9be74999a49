import { describe, expect, it } from 'vitest';
import { onlyHeldPods, planPods, type ActualPods } from '../../edge/edged/plan-pods.js';
import type { ContainerProbeStatus, ProbeStatuses } from '../../edge/prober/probe-status.js';
import type { Pod } from '../../shared/types.js';
import { container, pod, sandbox } from './fixtures.js';

/** An action reduced to what a table can say: type and the ids it touches (an hour in: every back-off is over). */
function summary(desired: Pod[], actual: ActualPods, now = 3_600_000, probes?: ProbeStatuses): string[] {
  return planPods(desired, actual, now, { timeScale: 1 }, probes).map((a) => {
    switch (a.type) {
      case 'runSandbox':
        return `runSandbox ${a.pod.metadata.uid}`;
      case 'startContainer':
        return `start ${a.pod.metadata.uid}/${a.container.name}#${a.attempt}`;
      case 'removeContainer':
        return `remove ${a.containerId}`;
      case 'killContainer':
        return `killContainer ${a.containerId} grace ${a.graceMs} (${a.reason})`;
      case 'killPod':
        return `kill ${a.sandboxId} [${a.containerIds.join(',')}]`;
      case 'backOff':
        return `backOff ${a.pod.metadata.uid}/${a.container.name} until ${a.until}`;
    }
  });
}

const twoContainers = { containers: [{ name: 'app', image: 'a' }, { name: 'side', image: 'b' }] };
/** A pod whose last reported status says container `app` ran (id sim://old) with `restarts` restarts. */
const reported = (restarts: number): Pod => ({
  ...pod('p', 'u1'),
  status: { containerStatuses: [{ name: 'app', ready: true, restartCount: restarts, image: 'nginx:1.27', imageID: '', containerID: 'sim://old', state: { running: {} }, lastState: {} }] },
});
const exited = (exitCode: number, attempt = 0) => ({ state: 'exited' as const, exitCode, attempt, finishedAt: 1 });

const httpProbe = (fields = {}) => ({ httpGet: { port: 80 }, ...fields });
const probed = (spec: Partial<Pod['spec']['containers'][number]>, podSpec: Partial<Pod['spec']> = {}): Pod =>
  pod('p', 'u1', { containers: [{ name: 'app', image: 'nginx:1.27', ...spec }], ...podSpec });
const says = (status: ContainerProbeStatus): ProbeStatuses => new Map([['c-u1-app-0', status]]);

const cases: { name: string; desired: Pod[]; actual: ActualPods; now?: number; probes?: ProbeStatuses; expected: string[] }[] = [
  { name: 'nothing wanted, nothing running', desired: [], actual: { sandboxes: [], containers: [] }, expected: [] },
  {
    name: 'new pod: sandbox then every container',
    desired: [pod('p', 'u1', twoContainers)],
    actual: { sandboxes: [], containers: [] },
    expected: ['runSandbox u1', 'start u1/app#0', 'start u1/side#0'],
  },
  {
    name: 'after a node reboot: the attempt goes on from the reported restartCount',
    desired: [reported(3)],
    actual: { sandboxes: [], containers: [] },
    expected: ['runSandbox u1', 'start u1/app#4'],
  },
  {
    name: 'a container gone from its sandbox: the attempt goes on too',
    desired: [reported(0)],
    actual: { sandboxes: [sandbox('u1')], containers: [] },
    expected: ['start u1/app#1'],
  },
  {
    name: 'running pod: nothing to do',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    expected: [],
  },
  {
    name: 'started, not running yet (a simulated start delay): wait',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', { state: 'created', starting: true })] },
    expected: [],
  },
  {
    name: 'sandbox without containers: start them',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [] },
    expected: ['start u1/app#0'],
  },
  {
    name: 'pod no longer wanted: kill it with its containers',
    desired: [],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    expected: ['kill sb-u1 [c-u1-app-0]'],
  },
  {
    name: 'pod being deleted counts as not wanted',
    desired: [{ ...pod('p', 'u1'), metadata: { ...pod('p', 'u1').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    expected: ['kill sb-u1 [c-u1-app-0]'],
  },
  {
    name: 'replaced pod (same name, new uid): old killed, new started',
    desired: [pod('p', 'u2')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    expected: ['kill sb-u1 [c-u1-app-0]', 'runSandbox u2', 'start u2/app#0'],
  },
  {
    name: 'Always: a container that exited 0 restarts',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(0))] },
    expected: ['start u1/app#1'],
  },
  {
    name: 'OnFailure: exit 1 restarts',
    desired: [pod('p', 'u1', { restartPolicy: 'OnFailure' })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(1))] },
    expected: ['start u1/app#1'],
  },
  {
    name: 'OnFailure: exit 0 stays down',
    desired: [pod('p', 'u1', { restartPolicy: 'OnFailure' })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(0))] },
    expected: [],
  },
  {
    name: 'Never: exit 1 stays down',
    desired: [pod('p', 'u1', { restartPolicy: 'Never' })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(1))] },
    expected: [],
  },
  {
    name: 'restart removes attempts older than the one it replaces',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(1, 0)), container('u1', exited(1, 1))] },
    expected: ['start u1/app#2', 'remove c-u1-app-0'],
  },
  {
    name: 'running attempt keeps the previous one (lastState), drops older',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(1, 0)), container('u1', exited(1, 1)), container('u1', { attempt: 2 })] },
    expected: ['remove c-u1-app-0'],
  },
  {
    name: 'Always: a container that exited again right after its restart waits out its back-off (10 s after it finished)',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(0)), container('u1', { ...exited(0, 1), createdAt: 1 })] },
    now: 10_000,
    expected: ['backOff u1/app until 10001'],
  },
  {
    name: 'a container its sandbox lost is removed',
    desired: [],
    actual: { sandboxes: [], containers: [container('u9')] },
    expected: ['remove c-u9-app-0'],
  },
  {
    name: 'a not-ready sandbox is replaced',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1', 'sb-u1', 'notready')], containers: [container('u1', exited(0))] },
    expected: ['kill sb-u1 [c-u1-app-0]', 'runSandbox u1', 'start u1/app#0'],
  },
  {
    name: 'a container not in the spec is removed',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1'), container('u1', { name: 'gone' })] },
    expected: ['remove c-u1-gone-0'],
  },
  {
    name: 'two sandboxes for one pod: the newest stays',
    desired: [pod('p', 'u1')],
    actual: { sandboxes: [sandbox('u1', 'old', 'ready', 1), sandbox('u1', 'sb-u1', 'ready', 2)], containers: [container('u1')] },
    expected: ['kill old []'],
  },
  {
    name: 'failed liveness probe: killed with the pod grace period (default 30 s)',
    desired: [probed({ livenessProbe: httpProbe() })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    probes: says({ unhealthy: 'Liveness probe failed: boom' }),
    expected: ['killContainer c-u1-app-0 grace 30000 (Liveness probe failed: boom)'],
  },
  {
    name: "failed liveness probe: the probe's own terminationGracePeriodSeconds wins over the pod's",
    desired: [probed({ livenessProbe: httpProbe({ terminationGracePeriodSeconds: 5 }) }, { terminationGracePeriodSeconds: 60 })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    probes: says({ unhealthy: 'Liveness probe failed: boom' }),
    expected: ['killContainer c-u1-app-0 grace 5000 (Liveness probe failed: boom)'],
  },
  {
    name: 'failed startup probe: killed with the startup probe grace period, not the liveness one',
    desired: [probed({ startupProbe: httpProbe({ terminationGracePeriodSeconds: 2 }), livenessProbe: httpProbe({ terminationGracePeriodSeconds: 7 }) })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    probes: says({ started: false, unhealthy: 'Startup probe failed: boom' }),
    expected: ['killContainer c-u1-app-0 grace 2000 (Startup probe failed: boom)'],
  },
  {
    name: 'not ready is no reason to kill',
    desired: [probed({ readinessProbe: httpProbe() })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1')] },
    probes: says({ ready: false }),
    expected: [],
  },
  {
    name: 'an unhealthy container that already exited is restarted, not killed',
    desired: [probed({ livenessProbe: httpProbe() })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(143))] },
    probes: says({ unhealthy: 'Liveness probe failed: boom' }),
    expected: ['start u1/app#1'],
  },
  {
    name: 'image changed: that container is killed and started again at once, whatever the policy; the other runs on',
    desired: [pod('p', 'u1', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'nginx:1.28' }, { name: 'side', image: 'nginx:1.27' }] })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1'), container('u1', { name: 'side' })] },
    expected: ['killContainer c-u1-app-0 grace 30000 (definition changed)', 'start u1/app#1'],
  },
  {
    name: 'image changed of a container backing off: no back-off for the new definition',
    desired: [pod('p', 'u1', { containers: [{ name: 'app', image: 'nginx:1.28' }] })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', exited(1)), container('u1', { ...exited(1, 1), createdAt: 1 })] },
    now: 2,
    expected: ['start u1/app#2', 'remove c-u1-app-0'],
  },
  {
    name: 'image changed of a running init container: it runs on, as the kubelet leaves it',
    desired: [pod('p', 'u1', { initContainers: [{ name: 'init', image: 'busybox:2' }], containers: [{ name: 'app', image: 'nginx:1.27' }] })],
    actual: { sandboxes: [sandbox('u1')], containers: [container('u1', { name: 'init', image: 'busybox:1' })] },
    expected: [],
  },
];

describe('planPods', () => {
  it.each(cases)('$name', ({ desired, actual, now, probes, expected }) => {
    expect(summary(desired, actual, now, probes)).toEqual(expected);
  });

  it('is pure: it does not touch its inputs', () => {
    const desired = [pod('p', 'u1')];
    const actual = { sandboxes: [sandbox('u9')], containers: [container('u9')] };
    const before = structuredClone({ desired, actual });
    planPods(desired, actual, 0);
    expect({ desired, actual }).toEqual(before);
  });
});

describe('onlyHeldPods', () => {
  it('leaves out the sandboxes of pods not held, and their containers, so that planPods leaves them alone', () => {
    const actual = { sandboxes: [sandbox('u1'), sandbox('u9')], containers: [container('u1'), container('u9')] };
    const held = onlyHeldPods(actual, [pod('p', 'u1')]);
    expect(held).toEqual({ sandboxes: [sandbox('u1')], containers: [container('u1')] });
    expect(summary([pod('p', 'u1')], held)).toEqual([]);
    expect(summary([pod('p', 'u1')], actual)).toEqual(['kill sb-u9 [c-u9-app-0]']);
  });
});
